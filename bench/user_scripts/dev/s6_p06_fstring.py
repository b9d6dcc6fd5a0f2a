import torch

@torch.compile
def describe(x):
    y = x.relu()
    label = f"mean={y.mean()}"
    return y, label

describe(torch.randn(4))
