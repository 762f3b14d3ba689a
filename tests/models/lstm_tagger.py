"""A sequence tagger: embedding, a 2-layer bidirectional LSTM (`h, _ = self.lstm(x)`), a linear
layer and log_softmax over the tags. Input: token ids (int64). The ATen capture decomposes the
LSTM into its per-step matrix products and gates.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class LstmTagger(nn.Module):
    def __init__(self, vocab=40, dim=16, hidden=24, tags=5):
        super().__init__()
        self.embedding = nn.Embedding(vocab, dim, padding_idx=0)
        self.lstm = nn.LSTM(dim, hidden, num_layers=2, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2 * hidden, tags)

    def forward(self, ids):
        h, _ = self.lstm(self.embedding(ids))
        return F.log_softmax(self.out(h), dim=-1)


def make_lstm_tagger():
    model = LstmTagger()
    ids = torch.randint(1, 40, (2, 6))
    return model, ids
