"""Scaled dot-product attention as independently written transformer code spells it, one small
module per spelling, for the conformance tests of rules/attention.rules (issue #28): each must
become scaled_dot_product_attention under rules/std.rules and still match PyTorch.

    export_fx.py tests/models/attention_spellings.py:gpt2_hf -o DIR
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

E, H, T = 32, 4, 8


def _tokens(batch=2):
    return torch.randn(batch, T, E)


class Gpt2Hf(nn.Module):
    """HuggingFace GPT-2's attention: Conv1D-style addmm projections, a causal bool buffer,
    `/ torch.full([], d ** 0.5)`, `torch.where(causal, w, finfo.min)`, softmax, dropout, .type()."""

    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(E, 3 * E)
        self.c_proj = nn.Linear(E, E)
        self.attn_dropout = nn.Dropout(0.1)
        self.register_buffer("bias", torch.tril(torch.ones(T, T, dtype=torch.bool))
                             .view(1, 1, T, T))

    def _split_heads(self, x):
        return x.view(x.size()[:-1] + (H, E // H)).permute(0, 2, 1, 3)

    def forward(self, x):
        q, k, v = self.c_attn(x).split(E, dim=2)
        q, k, v = self._split_heads(q), self._split_heads(k), self._split_heads(v)
        w = torch.matmul(q, k.transpose(-1, -2))
        w = w / torch.full([], v.size(-1) ** 0.5, dtype=w.dtype, device=w.device)
        qlen, klen = q.size(-2), k.size(-2)
        causal = self.bias[:, :, klen - qlen:klen, :klen]
        mask_value = torch.full([], torch.finfo(w.dtype).min, dtype=w.dtype)
        w = torch.where(causal, w.to(w.dtype), mask_value)
        w = nn.functional.softmax(w, dim=-1)
        w = w.type(v.dtype)
        w = self.attn_dropout(w)
        y = torch.matmul(w, v)
        y = y.permute(0, 2, 1, 3).contiguous()
        return self.c_proj(y.view(y.size()[:-2] + (E,)))


class BertHf(nn.Module):
    """HuggingFace BERT's self-attention: an extended mask (1 - mask) * finfo.min added to the
    scores / sqrt(d), softmax, dropout; the padding mask is an input."""

    def __init__(self):
        super().__init__()
        self.query, self.key, self.value = nn.Linear(E, E), nn.Linear(E, E), nn.Linear(E, E)
        self.dropout = nn.Dropout(0.1)

    def heads(self, x):
        return x.view(x.size()[:-1] + (H, E // H)).permute(0, 2, 1, 3)

    def forward(self, x, padding):
        ext = padding[:, None, None, :].to(dtype=x.dtype)
        ext = (1.0 - ext) * torch.finfo(x.dtype).min
        q, k, v = self.heads(self.query(x)), self.heads(self.key(x)), self.heads(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2))
        scores = scores / math.sqrt(E // H)
        scores = scores + ext
        probs = self.dropout(nn.functional.softmax(scores, dim=-1))
        y = torch.matmul(probs, v).permute(0, 2, 1, 3).contiguous()
        return y.view(y.size()[:-2] + (E,))


class Einsum(nn.Module):
    """einsum attention: 'bhqd,bhkd->bhqk' scores, 'bhqk,bhkd->bhqd' output."""

    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(E, 3 * E)

    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, H, E // H).permute(2, 0, 3, 1, 4)
        s = torch.einsum("bhqd,bhkd->bhqk", q, k) * (E // H) ** -0.5
        p = s.softmax(dim=-1)
        y = torch.einsum("bhqk,bhkd->bhqd", p, v)
        return y.transpose(1, 2).reshape(b, t, E)


class EinsumSequenceFirst(nn.Module):
    """einsum attention on (batch, sequence, heads, d) tensors: 'bqhd,bkhd->bhqk' scores,
    'bhqk,bkhd->bqhd' output, as codes that never transpose the heads out write it."""

    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(E, 3 * E)

    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, H, E // H).unbind(2)
        s = torch.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(E // H)
        y = torch.einsum("bhqk,bkhd->bqhd", s.softmax(dim=-1), v)
        return y.reshape(b, t, E)


class PermutedKeys(nn.Module):
    """Heads left in place, (batch, T, heads, d), and each operand permuted where it is used:
    q.permute(0, 2, 1, 3) @ k.permute(0, 2, 3, 1)."""

    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(E, 3 * E)

    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, H, E // H).unbind(2)
        s = q.permute(0, 2, 1, 3) @ k.permute(0, 2, 3, 1) / math.sqrt(E // H)
        y = s.softmax(-1) @ v.permute(0, 2, 1, 3)
        return y.transpose(1, 2).reshape(b, t, E)


class NanoGpt(nn.Module):
    """nanoGPT's manual path: masked_fill(bias == 0, -inf) after * 1/sqrt(d), dropout."""

    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(E, 3 * E)
        self.drop = nn.Dropout(0.1)
        self.register_buffer("bias", torch.tril(torch.ones(T, T)).view(1, 1, T, T))

    def forward(self, x):
        B, Tn, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        q = q.view(B, Tn, H, C // H).transpose(1, 2)
        k = k.view(B, Tn, H, C // H).transpose(1, 2)
        v = v.view(B, Tn, H, C // H).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :Tn, :Tn] == 0, float("-inf"))
        att = self.drop(F.softmax(att, dim=-1))
        return (att @ v).transpose(1, 2).contiguous().view(B, Tn, C)


class T5Like(nn.Module):
    """T5's attention: no scale, an additive position bias, softmax in float32, type_as."""

    def __init__(self):
        super().__init__()
        self.q, self.k, self.v = (nn.Linear(E, E, bias=False) for _ in range(3))
        self.position_bias = nn.Parameter(torch.randn(1, H, T, T))
        self.dropout = nn.Dropout(0.1)

    def shape(self, x):
        return x.view(x.size(0), -1, H, E // H).transpose(1, 2)

    def forward(self, x):
        q, k, v = self.shape(self.q(x)), self.shape(self.k(x)), self.shape(self.v(x))
        scores = torch.matmul(q, k.transpose(3, 2))
        scores += self.position_bias
        w = nn.functional.softmax(scores.float(), dim=-1).type_as(scores)
        w = self.dropout(w)
        y = torch.matmul(w, v)
        return y.transpose(1, 2).contiguous().view(x.size(0), -1, E)


class Bmm3d(nn.Module):
    """Heads folded into the batch: (B*H, T, d) tensors, torch.bmm, k.transpose(1, 2) and
    softmax(dtype=torch.float32)."""

    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(E, 3 * E)

    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        fold = lambda z: z.reshape(b, t, H, E // H).transpose(1, 2).reshape(b * H, t, E // H)
        q, k, v = fold(q), fold(k), fold(v)
        s = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(E // H)
        p = F.softmax(s, dim=-1, dtype=torch.float32)
        y = torch.bmm(p, v)
        return y.reshape(b, H, t, E // H).transpose(1, 2).reshape(b, t, E)


class Mha(nn.Module):
    """nn.MultiheadAttention with a causal float mask, weights not needed."""

    def __init__(self):
        super().__init__()
        self.mha = nn.MultiheadAttention(E, H, batch_first=True)
        self.register_buffer("mask", torch.triu(torch.full((T, T), float("-inf")), 1))

    def forward(self, x):
        return self.mha(x, x, x, attn_mask=self.mask, need_weights=False)[0]


class MaskedFillFinite(nn.Module):
    """The common masked_fill(mask == 0, -1e9) with a padding mask input (annotated
    transformer)."""

    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(E, 3 * E)

    def forward(self, x, padding):
        b, t, _ = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, H, E // H).permute(2, 0, 3, 1, 4).unbind(0)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.size(-1))
        scores = scores.masked_fill(padding[:, None, None, :] == 0, -1e9)
        p = F.softmax(scores, dim=-1)
        return torch.matmul(p, v).transpose(1, 2).reshape(b, t, E)


def _padding(batch=2):
    mask = torch.ones(batch, T, dtype=torch.bool)
    mask[0, T - 3:] = False
    return mask


def gpt2_hf():
    return Gpt2Hf(), (_tokens(),)


def bert_hf():
    return BertHf(), (_tokens(), _padding().long())


def einsum():
    return Einsum(), (_tokens(),)


def einsum_sequence_first():
    return EinsumSequenceFirst(), (_tokens(),)


def permuted_keys():
    return PermutedKeys(), (_tokens(),)


def nanogpt():
    return NanoGpt(), (_tokens(),)


def t5_like():
    return T5Like(), (_tokens(),)


def bmm_3d():
    return Bmm3d(), (_tokens(),)


def mha():
    return Mha(), (_tokens(),)


def masked_fill_finite():
    # The second sequence is all padding: every key hidden, so a -1e9 fill averages the values
    # where -inf would give NaN.
    padding = _padding()
    padding[1] = False
    return MaskedFillFinite(), (_tokens(), padding.long())
