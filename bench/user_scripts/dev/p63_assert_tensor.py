import torch

@torch.compile
def normalize(p):
    assert (p >= 0).all(), "negative probabilities"
    return p / p.sum()

normalize(torch.rand(4))
