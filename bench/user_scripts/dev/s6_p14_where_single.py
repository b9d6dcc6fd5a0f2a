import torch

@torch.compile
def positives(x):
    idx = torch.where(x > 0)[0]
    return x[idx].sum()

positives(torch.randn(8))
