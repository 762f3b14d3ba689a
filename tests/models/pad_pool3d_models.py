"""pad in every mode and the 3-D pools, through both capture paths: the padding modules
(ZeroPad2d, ConstantPad1d, ReflectionPad2d/3d, ReplicationPad1d/3d) and F.pad with a crop,
MaxPool3d with ceil_mode, AvgPool3d without the padding in its count, and an AdaptiveAvgPool3d
with uneven windows, after a conv3d. Input 2 x 4 x 6 x 7 x 8. torch decomposes
F.pad(mode='circular') into writes into an empty tensor at the ATen level, so only the fx
model has it.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class PadPool3d(nn.Module):
    def __init__(self, circular):
        super().__init__()
        self.circular = circular
        self.conv = nn.Conv3d(4, 4, 1)
        self.replicate3d = nn.ReplicationPad3d((1, 0, 2, 1, 0, 1))
        self.reflect3d = nn.ReflectionPad3d(1)
        self.max = nn.MaxPool3d(3, stride=2, padding=1, ceil_mode=True)
        self.avg = nn.AvgPool3d((2, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1),
                                count_include_pad=False)
        self.adaptive = nn.AdaptiveAvgPool3d((2, 3, 5))
        self.zero2d = nn.ZeroPad2d((1, 2, 0, 1))
        self.reflect2d = nn.ReflectionPad2d(2)
        self.replicate1d = nn.ReplicationPad1d(3)
        self.constant1d = nn.ConstantPad1d(2, 1.5)

    def forward(self, x):
        x = self.conv(x)
        pooled = (self.max(self.replicate3d(x)), self.avg(self.reflect3d(x)), self.adaptive(x),
                  F.pad(x, (1, -1, 2, 0), value=-0.5))
        planes = x.flatten(1, 2)  # N x 24 x 7 x 8
        rows = planes.flatten(2)  # N x 24 x 56
        padded = (self.reflect2d(self.zero2d(planes)), self.constant1d(self.replicate1d(rows)))
        if self.circular:
            padded += (F.pad(x, (1, 1, 2, 2, 0, 1), mode="circular"),)
        return pooled + padded


def make_pad_pool3d():
    return PadPool3d(circular=True), torch.randn(2, 4, 6, 7, 8)


def make_pad_pool3d_aten():
    return PadPool3d(circular=False), torch.randn(2, 4, 6, 7, 8)
