import torch

@torch.compile
def noisy(x):
    torch.manual_seed(0)
    return x + torch.randn_like(x)

noisy(torch.randn(4))
