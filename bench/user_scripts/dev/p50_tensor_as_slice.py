import torch

@torch.compile
def crop(x, length):
    n = length.sum()
    return x[:n]

crop(torch.rand(10), torch.tensor([2, 3]))
