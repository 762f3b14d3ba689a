"""A BERT-style encoder built from nn.TransformerEncoderLayer: token, position and segment
embeddings, LayerNorm, two post-norm encoder layers with GELU, a padding mask and a pooler on
the first token. Inputs: token ids (int64), segment ids (int64) and a padding mask (bool,
True = padding). torch.fx keeps nn.TransformerEncoder whole; the ATen capture decomposes it.
"""
import torch
import torch.nn as nn


class BertEncoder(nn.Module):
    def __init__(self, vocab=50, max_len=32, dim=32, heads=4, layers=2, hidden=64, classes=3):
        super().__init__()
        self.tokens = nn.Embedding(vocab, dim)
        self.positions = nn.Embedding(max_len, dim)
        self.segments = nn.Embedding(2, dim)
        self.norm = nn.LayerNorm(dim, eps=1e-12)
        layer = nn.TransformerEncoderLayer(dim, heads, hidden, dropout=0.1, activation="gelu",
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.pooler = nn.Linear(dim, dim)
        self.classifier = nn.Linear(dim, classes)

    def forward(self, ids, segments, padding):
        positions = torch.arange(ids.shape[1], device=ids.device).expand_as(ids)
        x = self.tokens(ids) + self.positions(positions) + self.segments(segments)
        x = self.encoder(self.norm(x), src_key_padding_mask=padding)
        pooled = torch.tanh(self.pooler(x[:, 0]))
        return self.classifier(pooled), x


def make_bert():
    model = BertEncoder()
    ids = torch.randint(0, 50, (2, 10))
    segments = torch.cat([torch.zeros(2, 6, dtype=torch.long),
                          torch.ones(2, 4, dtype=torch.long)], dim=1)
    padding = torch.zeros(2, 10, dtype=torch.bool)
    padding[1, 7:] = True
    return model, (ids, segments, padding)
