"""A 1-D convolutional audio classifier on raw waveforms (M5-style): a wide strided Conv1d,
BatchNorm1d, ReLU and MaxPool1d blocks, global average pooling and a linear head. Input
2 x 1 x 800 samples.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class AudioCnn(nn.Module):
    def __init__(self, classes=10, width=16):
        super().__init__()
        self.conv1 = nn.Conv1d(1, width, 40, stride=8, padding=16)
        self.bn1 = nn.BatchNorm1d(width)
        self.conv2 = nn.Conv1d(width, width, 3, padding=1)
        self.bn2 = nn.BatchNorm1d(width)
        self.conv3 = nn.Conv1d(width, 2 * width, 3, padding=2, dilation=2)
        self.bn3 = nn.BatchNorm1d(2 * width)
        self.fc = nn.Linear(2 * width, classes)

    def forward(self, x):
        x = F.max_pool1d(F.relu(self.bn1(self.conv1(x))), 4)
        x = F.max_pool1d(F.relu(self.bn2(self.conv2(x))), 2)
        x = F.relu(self.bn3(self.conv3(x)))
        x = F.adaptive_avg_pool1d(x, 1).squeeze(-1)
        return F.log_softmax(self.fc(x), dim=-1)


def make_audio_cnn():
    return AudioCnn(), torch.randn(2, 1, 800)
