import torch


@torch.compile
def weighted(x, weights):
    w = torch.tensor([float(v) for v in weights])
    return (x * w).sum()


weighted(torch.randn(3), torch.tensor([0.2, 0.3, 0.5]))
