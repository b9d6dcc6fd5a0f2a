import torch


@torch.compile
def normalize(x):
    torch._assert((x >= 0).all(), "expected non-negative input")
    return x / x.sum()


normalize(torch.rand(5))
