"""A U-Net-style decoder block: transposed convolutions (2x2 stride 2; 3x3 stride 2 with
padding, output_padding and groups; a functional one with dilation 2), nn.GroupNorm and
F.group_norm with random affine parameters, a conv -> batch-norm pair that the rules fold, and a batch norm after a transposed
convolution that no rule may fold. Input 2 x 16 x 5 x 7.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class DecoderBlock(nn.Module):
    def __init__(self, cin=16, cout=8):
        super().__init__()
        self.up = nn.ConvTranspose2d(cin, cout, 2, stride=2)
        self.norm1 = nn.GroupNorm(4, cout)
        self.conv = nn.Conv2d(cout, cout, 3, padding=1)
        self.bn = nn.BatchNorm2d(cout)
        self.up2 = nn.ConvTranspose2d(cout, cout, 3, stride=2, padding=1, output_padding=1,
                                      groups=2)
        self.bn2 = nn.BatchNorm2d(cout)
        self.w3 = nn.Parameter(torch.randn(cout, cout // 2, 3, 3) * 0.2)
        self.gn_weight = nn.Parameter(torch.rand(cout) + 0.5)
        self.gn_bias = nn.Parameter(torch.randn(cout) * 0.1)
        with torch.no_grad():
            self.norm1.weight.copy_(torch.rand(cout) + 0.5)
            self.norm1.bias.copy_(torch.randn(cout) * 0.1)

    def forward(self, x):
        y = F.relu(self.norm1(self.up(x)))
        y = F.relu(self.bn(self.conv(y)))
        y = self.bn2(self.up2(y))
        y = F.group_norm(y, 2, self.gn_weight, self.gn_bias, eps=1e-3)
        return F.conv_transpose2d(F.silu(y), self.w3, None, 1, 1, 0, 1, 2)


def make_decoder_block():
    torch.manual_seed(0)
    return DecoderBlock(), torch.randn(2, 16, 5, 7)
