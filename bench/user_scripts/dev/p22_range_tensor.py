import torch

@torch.compile
def cumulative(x, n):
    out = x
    for _ in range(n):
        out = out * 2
    return out

cumulative(torch.rand(3), torch.tensor(3))
