"""A model that calls most entries of the exporter's normalisation table (tools/export/ops.py)
in the forms fx records them: torch.nn modules, torch.nn.functional, torch.* functions,
Tensor methods and Python operators, plus folded sizes. Exported and compared with PyTorch by
the `models: op_zoo` test; it is not meant to compute anything useful."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class OpZoo(nn.Module):
    input_shapes = [(4, 12, 12)]

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 8, 3, padding="same", bias=False)
        self.bn = nn.BatchNorm2d(8)
        self.dw = nn.Conv2d(8, 8, 3, stride=2, padding=1, groups=8)
        self.pool = nn.MaxPool2d(2, ceil_mode=True)
        self.avg = nn.AvgPool2d(3, stride=1, padding=1)
        self.acts = nn.ModuleList([nn.ReLU6(), nn.Hardtanh(-0.5, 0.5), nn.LeakyReLU(0.2),
                                   nn.ELU(0.7), nn.Hardswish(), nn.Hardsigmoid(), nn.SiLU(),
                                   nn.GELU(approximate="tanh"), nn.Tanh(), nn.Softplus(2.0)])
        self.flatten = nn.Flatten()
        self.fc = nn.Linear(8 * 3 * 3, 10)
        self.ln = nn.LayerNorm(10)
        self.drop = nn.Dropout(0.3)
        self.identity = nn.Identity()
        self.register_buffer("offset", torch.linspace(-1.0, 1.0, 10))

    def forward(self, x):
        y = F.relu(self.bn(self.conv(x)))
        y = self.dw(y)                                            # n, 8, 6, 6
        y = y + self.avg(y) * 0.5 - 1.0
        y = 2.0 - y
        y = self.pool(y)                                          # n, 8, 3, 3
        parts = [act(y) for act in self.acts]
        y = sum(parts[1:], parts[0])
        y = torch.clamp(y, min=-3.0, max=3.0).abs().sqrt() + y.sigmoid()
        y = torch.maximum(y, y.mean(dim=(2, 3), keepdim=True))
        z = self.flatten(y)                                       # n, 72
        z = self.ln(self.fc(self.drop(z))) + self.offset
        z = z / (1.0 + torch.exp(-z)) ** 2 + torch.rsqrt(z * z + 1.0)
        w = z.view(z.size(0), 2, 5).permute(0, 2, 1).contiguous()  # n, 5, 2
        w = torch.matmul(w.transpose(1, 2), w).softmax(-1)        # n, 2, 2
        w = torch.flatten(w.unsqueeze(1), 1)                      # n, 4
        s = torch.cat([w, torch.log_softmax(z, dim=1), self.identity(z)], dim=1)
        t = F.adaptive_avg_pool2d(y, (1, None)).squeeze(2).amax(-1)  # n, 8
        return s.sum(1, keepdim=True) * 0.01 + t.mean(1, keepdim=True), torch.neg(s)


def make_op_zoo():
    return OpZoo()
