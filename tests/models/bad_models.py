"""Models the exporter must refuse, for tests/models/export_errors_test.py. Each factory
returns an nn.Module; the test runs export_fx.py on it and checks the exit code, the message,
that no traceback is printed and that nothing is written."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class DataDependentBranch(nn.Module):
    """An `if` on a tensor's value: torch.fx cannot trace it."""

    input_shapes = [(8,)]

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        y = self.fc(x)
        if y.sum() > 0:
            return torch.relu(y)
        return y


class Float64Weights(nn.Module):
    """A model whose weights are float64 (model.double())."""

    input_shapes = [(8,)]

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 8)
        self.fc2 = nn.Linear(8, 4)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class UnsupportedOps(nn.Module):
    """Several calls without a graft op: each must be listed with its fx node name."""

    input_shapes = [(4, 16)]

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(4, 4, 3, padding=1)

    def forward(self, x):
        y = self.conv(x)
        y = torch.tril(y)
        halves = y.chunk(2, dim=-1)
        y = torch.relu(halves[0] + halves[1])
        return torch.cumsum(y, dim=-1)


class SmallCnn(nn.Module):
    """A model that exports fine (for the output-directory tests)."""

    input_shapes = [(3, 8, 8)]

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)))


def data_dependent_branch():
    return DataDependentBranch()


def float64_weights():
    return Float64Weights().double()


def unsupported_ops():
    return UnsupportedOps()


def small_cnn():
    return SmallCnn()
