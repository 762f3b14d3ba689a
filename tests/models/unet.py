"""A small U-Net: double 3x3 convolutions with GroupNorm and ReLU, max-pool downsampling, one
upsampling path through ConvTranspose2d and one through bilinear F.interpolate, skip
connections joined with torch.cat after F.pad evens out odd sizes. Input 1 x 3 x 30 x 30.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


def double_conv(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.GroupNorm(4, cout), nn.ReLU(),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.GroupNorm(4, cout), nn.ReLU())


class UNet(nn.Module):
    def __init__(self, channels=3, classes=2, width=8):
        super().__init__()
        self.inc = double_conv(channels, width)
        self.down1 = double_conv(width, 2 * width)
        self.down2 = double_conv(2 * width, 4 * width)
        self.up1 = nn.ConvTranspose2d(4 * width, 2 * width, 2, stride=2)
        self.conv1 = double_conv(4 * width, 2 * width)
        self.conv2 = double_conv(3 * width, width)
        self.outc = nn.Conv2d(width, classes, 1)

    @staticmethod
    def join(skip, x):
        dy, dx = skip.size(2) - x.size(2), skip.size(3) - x.size(3)
        x = F.pad(x, [dx // 2, dx - dx // 2, dy // 2, dy - dy // 2])
        return torch.cat([skip, x], dim=1)

    def forward(self, x):
        x1 = self.inc(x)                               # 30 x 30
        x2 = self.down1(F.max_pool2d(x1, 2))           # 15 x 15
        x3 = self.down2(F.max_pool2d(x2, 2))           # 7 x 7
        y = self.conv1(self.join(x2, self.up1(x3)))    # 14 -> padded to 15
        y = F.interpolate(y, scale_factor=2, mode="bilinear", align_corners=False)
        y = self.conv2(self.join(x1, y))
        return self.outc(y)


def make_unet():
    return UNet(), torch.randn(1, 3, 30, 30)
