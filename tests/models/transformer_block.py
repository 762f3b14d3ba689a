"""A pre-norm transformer encoder block written with torch.nn.functional only (linear,
layer_norm, softmax, matmul, gelu, reshape/permute/transpose), for the exporter's tests:

    export_fx.py tests/models/transformer_block.py:make_encoder_block -o DIR --reference

Sizes come from x.shape, so the exported graph keeps the batch symbolic: the batch-dependent
sizes of the reshapes become -1.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class EncoderBlock(nn.Module):
    input_shapes = [(16, 64)]  # (tokens, model dim) per sample; export_fx.py reads this

    def __init__(self, dim=64, heads=4, hidden=256):
        super().__init__()
        self.heads = heads

        def param(*shape, scale=None):
            scale = scale if scale is not None else 1.0 / math.sqrt(shape[-1])
            return nn.Parameter(torch.randn(*shape) * scale)
        self.ln1_weight, self.ln1_bias = param(dim, scale=0.1), param(dim, scale=0.1)
        # Separate q, k and v projections: graft has no op to slice a fused qkv tensor.
        self.q_weight, self.q_bias = param(dim, dim), param(dim, scale=0.02)
        self.k_weight, self.k_bias = param(dim, dim), param(dim, scale=0.02)
        self.v_weight, self.v_bias = param(dim, dim), param(dim, scale=0.02)
        self.proj_weight, self.proj_bias = param(dim, dim), param(dim, scale=0.02)
        self.ln2_weight, self.ln2_bias = param(dim, scale=0.1), param(dim, scale=0.1)
        self.fc1_weight, self.fc1_bias = param(hidden, dim), param(hidden, scale=0.02)
        self.fc2_weight, self.fc2_bias = param(dim, hidden), param(dim, scale=0.02)
        with torch.no_grad():
            self.ln1_weight += 1.0
            self.ln2_weight += 1.0

    def forward(self, x):
        # x.shape cannot be unpacked while tracing (a Proxy is not iterable); index it.
        b, t, c = x.shape[0], x.shape[1], x.size(2)
        h = self.heads
        d = c // h
        y = F.layer_norm(x, (c,), self.ln1_weight, self.ln1_bias, eps=1e-6)
        q = self._heads(F.linear(y, self.q_weight, self.q_bias), b, t, h, d)  # b, h, t, d
        k = self._heads(F.linear(y, self.k_weight, self.k_bias), b, t, h, d)
        v = self._heads(F.linear(y, self.v_weight, self.v_bias), b, t, h, d)
        scores = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(d))
        attention = F.softmax(scores, dim=-1)
        y = torch.matmul(attention, v)                                   # b, h, t, d
        y = y.permute(0, 2, 1, 3).reshape(b, t, c)
        x = x + F.linear(y, self.proj_weight, self.proj_bias)
        y = F.layer_norm(x, (c,), self.ln2_weight, self.ln2_bias, eps=1e-6)
        y = F.gelu(F.linear(y, self.fc1_weight, self.fc1_bias))
        return x + F.linear(y, self.fc2_weight, self.fc2_bias)

    @staticmethod
    def _heads(y, b, t, h, d):
        return y.view(b, t, h, d).transpose(1, 2)


def make_encoder_block():
    return EncoderBlock()
