"""Instance normalisation (issue #27), exported as group_norm with one group per channel when
a norm uses each sample's own statistics and as batch_norm when it uses running statistics:
InstanceNorm2d(affine=True), InstanceNorm1d without affine parameters, InstanceNorm2d with
tracked running statistics in eval mode (after a conv of its own, into which std.rules folds
it), InstanceNorm3d, F.instance_norm and an unbatched (C, L) input, after a conv so that the
planes are not standard normal already. Input 2 x 4 x 6 x 7. Also RAFT's feature encoder (15
InstanceNorm2d), one of the parts of torchvision's RAFT that export.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class InstanceNorms(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 6, 3, padding=1)
        self.tracked_conv = nn.Conv2d(4, 6, 1)
        self.affine2d = nn.InstanceNorm2d(6, affine=True)
        self.plain1d = nn.InstanceNorm1d(6, eps=1e-3)
        self.tracked2d = nn.InstanceNorm2d(6, affine=True, track_running_stats=True)
        self.plain3d = nn.InstanceNorm3d(2)
        self.weight = nn.Parameter(torch.rand(6) + 0.5)

    def forward(self, image):
        x = self.conv(image)
        rows = x.flatten(2)  # N x 6 x 42
        volume = x.reshape(x.shape[0], 2, 3, 6, 7)
        functional = F.instance_norm(x * 3.0 + 1.0, weight=self.weight, eps=1e-4)
        tracked = self.tracked2d(self.tracked_conv(image))
        return (self.affine2d(x), self.plain1d(rows * 2.0 - 5.0), tracked, self.plain3d(volume),
                functional, self.plain1d(rows.mean(0)))


def make_instance_norms():
    """model_test's --randomize-norm-stats draws the tracked norm's statistics; the affine
    parameters of the others are drawn here, so that a dropped weight or bias shows."""
    torch.manual_seed(0)
    model = InstanceNorms()
    with torch.no_grad():
        model.affine2d.weight.copy_(torch.rand(6) + 0.5)
        model.affine2d.bias.copy_(torch.randn(6) * 0.5)
    return model.eval(), torch.randn(2, 4, 6, 7)


def make_raft_feature_encoder():
    """torchvision's raft_large feature encoder, randomly initialised, on a 64 x 96 image pair
    stacked as a batch of two."""
    import torchvision
    torch.manual_seed(0)
    encoder = torchvision.models.optical_flow.raft_large().feature_encoder
    return encoder.eval(), torch.randn(2, 3, 64, 96)
