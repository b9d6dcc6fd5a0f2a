import torch

@torch.compile
def make_leaf(x):
    w = torch.zeros(3)
    w.requires_grad_()
    return x * w

make_leaf(torch.rand(3))
