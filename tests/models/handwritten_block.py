"""A transformer MLP block written the way older model code writes its pieces by hand —
HuggingFace's BertLayerNorm (`(x - u).pow(2).mean(-1, keepdim=True)`), the erf GELU,
x * sigmoid(x), and x @ W + b — for the recognition rules of rules/recognize.rules:

    model_test.py … tests/models/handwritten_block.py:make_handwritten_block \
        --rules rules/std.rules --expect-gone mean,pow,sqrt,erf,sigmoid,matmul

After the standard rules the graph holds layer_norm, linear, gelu and silu ops only, and its
outputs still match PyTorch's.
"""
import math

import torch
import torch.nn as nn


class BertLayerNorm(nn.Module):
    """HuggingFace's pre-apex LayerNorm ("TF style": epsilon inside the square root)."""

    def __init__(self, hidden, eps=1e-12):
        super().__init__()
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(hidden))
        self.bias = nn.Parameter(0.1 * torch.randn(hidden))
        self.variance_epsilon = eps

    def forward(self, x):
        u = x.mean(-1, keepdim=True)
        s = (x - u).pow(2).mean(-1, keepdim=True)
        x = (x - u) / torch.sqrt(s + self.variance_epsilon)
        return self.weight * x + self.bias


class HandwrittenBlock(nn.Module):
    input_shapes = [(8, 32)]  # (tokens, model dim) per sample; export_fx.py reads this

    def __init__(self, dim=32, hidden=64):
        super().__init__()
        self.norm1 = BertLayerNorm(dim)
        self.w1 = nn.Parameter(torch.randn(dim, hidden) / math.sqrt(dim))  # (in, out): x @ w1
        self.b1 = nn.Parameter(0.02 * torch.randn(hidden))
        self.w2 = nn.Parameter(torch.randn(hidden, dim) / math.sqrt(hidden))
        self.b2 = nn.Parameter(0.02 * torch.randn(dim))
        self.norm2 = BertLayerNorm(dim, eps=1e-5)

    def forward(self, x):
        y = self.norm1(x)
        y = torch.matmul(y, self.w1) + self.b1
        y = y * 0.5 * (1.0 + torch.erf(y / math.sqrt(2.0)))  # exact GELU, as BERT writes it
        y = torch.matmul(y, self.w2) + self.b2
        y = y * torch.sigmoid(y)                             # SiLU
        return self.norm2(x + y)


def make_handwritten_block():
    torch.manual_seed(0)
    return HandwrittenBlock().eval()
