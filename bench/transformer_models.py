"""The transformer models of bench/transformer_bench.py (issue #28), each a factory returning
(module, example_inputs) for tools/export_fx.py and bench/torch_bench.py:

  vit_b_16    torchvision's ViT-B/16 at 224 x 224 (weights=None);
  bert_base   a BERT-base-shaped encoder: 12 nn.TransformerEncoderLayer (width 768, 12 heads,
              FFN 3072, GELU, post-norm, batch_first), run on embeddings of sequence 128; in
              eval mode PyTorch takes its fused "fast path" (torch._transformer_encoder_layer_fwd);
  gpt2_small  a GPT-2-small-shaped decoder written by hand as people write it (12 blocks,
              width 768, 12 heads, causal masked_fill, tanh GELU, pre-norm) on embeddings of
              sequence 128.

BENCH_BATCH sets the example's batch (the exporter's --batch sets it for export).
"""
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

SEQ = 128
WIDTH = 768


def _batch():
    return int(os.environ.get("BENCH_BATCH", "1"))


def make_vit_b_16():
    import torchvision
    model = torchvision.models.vit_b_16(weights=None)
    return model, torch.randn(_batch(), 3, 224, 224)


def make_bert_base():
    layer = nn.TransformerEncoderLayer(WIDTH, 12, 3072, dropout=0.1, activation="gelu",
                                       batch_first=True)
    model = nn.TransformerEncoder(layer, 12, enable_nested_tensor=False)
    return model, torch.randn(_batch(), SEQ, WIDTH)


class CausalSelfAttention(nn.Module):
    def __init__(self, width, heads, block):
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        self.heads = heads
        self.register_buffer("mask", torch.tril(torch.ones(block, block)).view(1, 1, block, block))

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        q = q.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.mask[:, :, :t, :t] == 0, float("-inf"))
        y = F.softmax(att, dim=-1) @ v
        return self.proj(y.transpose(1, 2).contiguous().view(b, t, c))


class GPT2Block(nn.Module):
    def __init__(self, width, heads, block):
        super().__init__()
        self.ln_1 = nn.LayerNorm(width)
        self.attn = CausalSelfAttention(width, heads, block)
        self.ln_2 = nn.LayerNorm(width)
        self.fc = nn.Linear(width, 4 * width)
        self.out = nn.Linear(4 * width, width)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.out(F.gelu(self.fc(self.ln_2(x)), approximate="tanh"))


class GPT2(nn.Module):
    def __init__(self, layers=12, width=WIDTH, heads=12, block=1024):
        super().__init__()
        self.pos = nn.Parameter(torch.randn(1, block, width) * 0.02)
        self.blocks = nn.ModuleList([GPT2Block(width, heads, block) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(width)

    def forward(self, x):
        x = x + self.pos[:, :x.shape[1]]
        for block in self.blocks:
            x = block(x)
        return self.ln_f(x)


def make_gpt2_small():
    return GPT2(), torch.randn(_batch(), SEQ, WIDTH)
