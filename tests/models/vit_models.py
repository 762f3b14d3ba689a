"""torchvision's vit_b_16 with a random classification head. torchvision zero-initialises the
head, so the stock model outputs zeros whatever the input, and a comparison with PyTorch would
pass whatever graft computed; a head drawn like the other layers makes the logits depend on
every block (the class token: slice, select, expand_as)."""
import torch
import torchvision


def make_vit_b_16():
    model = torchvision.models.vit_b_16(weights=None)
    torch.nn.init.normal_(model.heads.head.weight, std=0.02)
    torch.nn.init.uniform_(model.heads.head.bias, -0.1, 0.1)
    return model.eval(), torch.randn(1, 3, 224, 224)
