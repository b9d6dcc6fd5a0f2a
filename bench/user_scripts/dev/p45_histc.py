import torch

@torch.compile
def entropy(x):
    h = torch.histc(x, bins=10)
    p = h / h.sum()
    p = p[p > 0]
    return -(p * p.log()).sum()

entropy(torch.rand(100))
