import torch

@torch.compile
def gate(x, use_relu):
    if use_relu and x.min() < 0:
        x = x.relu()
    return x

gate(torch.randn(3), True)
