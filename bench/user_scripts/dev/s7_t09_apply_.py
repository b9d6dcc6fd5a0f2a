import torch


@torch.compile
def squash(x):
    y = x.clone()
    y.apply_(lambda v: v * 0.5)
    return y + 1


squash(torch.randn(4))
