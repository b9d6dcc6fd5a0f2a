import torch


@torch.compile
def noisy(x, seed):
    g = torch.Generator().manual_seed(seed)
    return x + torch.randn(x.shape, generator=g)


noisy(torch.randn(3), 0)
