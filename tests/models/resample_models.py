"""F.interpolate and nn.Upsample through torch.fx: bilinear with and without align_corners,
nearest by size and by scale factor (a scale that maps coordinates by its inverse, and one
recomputed into a size), after a conv and batch norm the rules fold. Input 2 x 3 x 7 x 5.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Resample(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.up = nn.Upsample(scale_factor=1.5, mode="bilinear", align_corners=True)
        self.nearest = nn.UpsamplingNearest2d(size=(9, 5))

    def forward(self, x):
        x = self.bn(self.conv(x))
        y = F.interpolate(x, size=(11, 6), mode="bilinear")
        z = F.interpolate(x, scale_factor=2.1, recompute_scale_factor=True)
        return self.up(y), self.nearest(x), z, F.interpolate(x, scale_factor=(1.7, 0.6))


def make_resample():
    return Resample(), torch.randn(2, 3, 7, 5)
