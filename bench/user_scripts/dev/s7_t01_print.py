import torch


@torch.compile
def step(x):
    y = x * 2
    print("step output", y.shape)
    return y + 1


step(torch.randn(4))
