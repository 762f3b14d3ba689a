"""Small models for the capture tests (aten_test.py): which capture path `auto` picks, the
factory form with integer inputs, state_dict names on the ATen path, and the errors for ops
graft lacks. Each factory returns an nn.Module or (module, example_inputs).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class ChannelShuffleNet(nn.Module):
    """ShuffleNet's channel shuffle: `b, c, h, w = y.size()` cannot be traced by torch.fx on
    Python 3.11 (a Proxy is not iterable); make_fx runs it. Uses only ops graft has."""

    input_shapes = [(8, 6, 6)]

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(8, 8, 3, padding=1, groups=2)
        self.bn = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 1)
        self.fc = nn.Linear(16, 5)

    def forward(self, x):
        y = F.relu(self.bn(self.conv1(x)))
        b, c, h, w = y.size()
        y = y.view(b, 2, c // 2, h, w).transpose(1, 2).contiguous().view(b, c, h, w)
        y = F.adaptive_avg_pool2d(F.relu(self.conv2(y)), 1).flatten(1)
        return self.fc(y)


class TokenBag(nn.Module):
    """Token ids (int64) in: embedding, mean over the tokens, a linear head."""

    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(20, 8)
        self.fc = nn.Linear(8, 3)

    def forward(self, ids):
        return self.fc(self.embedding(ids).mean(1))


class TiedWeights(nn.Module):
    """A linear layer and a second one sharing its weight (weight tying), plus a buffer."""

    input_shapes = [(6,)]

    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(6, 6), nn.ReLU())
        self.decoder = nn.Linear(6, 6, bias=False)
        self.decoder.weight = self.encoder[0].weight
        self.register_buffer("scale", torch.linspace(0.5, 1.5, 6))

    def forward(self, x):
        b, f = x.size()  # torch.fx cannot unpack this, so `auto` uses make_fx
        return self.decoder(self.encoder(x)) * self.scale + f


class Spectrum(nn.Module):
    """An op graft has no equivalent for (an FFT), a few lines into forward()."""

    input_shapes = [(16,)]

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)

    def forward(self, x):
        y = torch.relu(self.fc(x))
        z = torch.fft.rfft(y).abs()
        return z


class SelfAttention(nn.Module):
    """nn.MultiheadAttention (batch first) in a pre-norm residual block. At batch 1 PyTorch
    records other data movement for it than at batch 2."""

    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(16)
        self.attention = nn.MultiheadAttention(16, 2, batch_first=True)

    def forward(self, x):
        y = self.norm(x)
        return x + self.attention(y, y, y, need_weights=False)[0]


class Moments(nn.Module):
    """Norms and moments (F.normalize, vector norms of orders 1, 2, 3 and inf, var, std,
    var_mean): the ATen path writes them with graft's elementwise ops and reductions."""

    def forward(self, x):
        var, mean = torch.var_mean(x, -1, keepdim=True)
        y = F.normalize(x, dim=-1) + x.norm(dim=-1, keepdim=True) + var * mean
        for order in (1, 3.0, float("inf")):
            y = y + torch.linalg.vector_norm(x, order, dim=-1, keepdim=True)
        return y + x.var(-1, keepdim=True) + x.std(1, keepdim=True)


class ClassToken(nn.Module):
    """ViT's class token: a (1, 1, C) parameter expanded to the batch and joined to the
    tokens."""

    def __init__(self):
        super().__init__()
        self.class_token = nn.Parameter(torch.randn(1, 1, 8))
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        n = x.shape[0]
        tokens = torch.cat([self.class_token.expand(n, -1, -1), x], dim=1)
        return self.fc(tokens)[:, 0]


class ZeroedBiasSlice(nn.Module):
    """Swin v2's attention bias: a copy of the qkv bias with its middle third zeroed in place
    (slice_scatter after functionalisation), computed from parameters only."""

    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(8, 24)

    def forward(self, x):
        bias = self.qkv.bias.clone()
        length = bias.numel() // 3
        bias[length:2 * length].zero_()
        return F.linear(x, self.qkv.weight, bias)


class RelativePositionEinsum(nn.Module):
    """MViT's relative position term, an einsum of activations with a parameter table: at batch
    1 PyTorch permutes by which dims are 1, so the batch is traced symbolic at 2 and 3."""

    def __init__(self):
        super().__init__()
        self.table = nn.Parameter(torch.randn(4, 5, 6))

    def forward(self, x):
        return torch.einsum("bythwc,hkc->bythwk", x, self.table)


class GatheredBias(nn.Module):
    """A bias reordered by a buffer of indices (torch.gather, which graft has no op for),
    computed from parameters and buffers only, so the exporter computes it and stores the
    result."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.register_buffer("order", torch.randperm(8))

    def forward(self, x):
        return F.linear(x, self.fc.weight, torch.gather(self.fc.bias, 0, self.order))


class InPlaceUpdates(nn.Module):
    """MViT's in-place updates of activations, which functionalisation turns into slice_scatter
    and select_scatter: attn[:, :, 1:, 1:] += rel_pos, x[:, :, 1:, :] += shortcut[:, :, 1:, :],
    and a whole row overwritten (y[:, 0] = z)."""

    def __init__(self):
        super().__init__()
        self.q = nn.Linear(8, 8)
        self.rel_pos = nn.Parameter(torch.randn(4, 4))

    def forward(self, x):  # (N, 2, 5, 8)
        attn = self.q(x) @ x.transpose(-2, -1)
        attn[:, :, 1:, 1:] += self.rel_pos
        y = x.clone()
        y[:, :, 1:, :] += self.q(x)[:, :, 1:, :]
        y[:, 0] = (attn.softmax(-1) @ x)[:, 1]
        y[:, 1, -1] = y[:, 1, 0] * 2
        return y


class ShiftedPositions(nn.Module):
    """Bounds that follow the length T linearly: x[:, :T-1] and arange(0, 2*T-2, 2), which the
    ATen path writes as the SymInts "T-1" and "2*T-2"."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):  # (N, T, 8)
        t = x.shape[1]
        positions = torch.arange(0, 2 * t - 2, 2, dtype=torch.float32)
        return self.fc(x)[:, :t - 1] + positions.unsqueeze(-1)


def channel_shuffle():
    return ChannelShuffleNet()


def token_bag():
    return TokenBag(), torch.randint(0, 20, (2, 5))


def tied_weights():
    return TiedWeights()


def spectrum():
    return Spectrum()


def moments():
    return Moments(), torch.randn(2, 3, 5)


def class_token():
    return ClassToken(), torch.randn(2, 4, 8)


def self_attention():
    return SelfAttention(), torch.randn(1, 5, 16)


def zeroed_bias_slice():
    return ZeroedBiasSlice(), torch.randn(2, 3, 8)


def relative_position_einsum():
    return RelativePositionEinsum(), torch.randn(1, 2, 3, 4, 3, 6)


def in_place_updates():
    return InPlaceUpdates(), torch.randn(2, 2, 5, 8)


def gathered_bias():
    return GatheredBias(), torch.randn(2, 3, 8)


def shifted_positions():
    return ShiftedPositions(), torch.randn(2, 6, 8)
