"""A small CNN with h-swish written by hand, x * hardsigmoid(x), as MobileNetV3 ports do: the
model examples/README.md applies examples/rules/my_fusion.rules to.

    /usr/bin/python3 tools/export_fx.py examples/models/hswish_net.py:make_net -o out/hswish_net
"""
import torch
import torch.nn.functional as F
from torch import nn


class HSwishNet(nn.Module):
    input_shapes = [(3, 32, 32)]

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3, padding=1)
        self.bn = nn.BatchNorm2d(16)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        y = self.bn(self.conv(x))
        y = y * F.hardsigmoid(y)  # h-swish, by hand
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(y, 1), 1))


def make_net():
    return HSwishNet()
