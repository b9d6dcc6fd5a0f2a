import torch


@torch.compile
def make(x):
    torch.set_default_dtype(torch.float64)
    y = torch.zeros(3)
    torch.set_default_dtype(torch.float32)
    return x + y.float()


make(torch.randn(3))
