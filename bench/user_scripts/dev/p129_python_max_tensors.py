import torch

@torch.compile
def biggest(a, b):
    m = max(a.sum(), b.sum())
    return a * m

biggest(torch.rand(3), torch.rand(3))
