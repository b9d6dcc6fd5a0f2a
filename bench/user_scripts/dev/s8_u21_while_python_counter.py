import torch


@torch.compile
def power_iter(a, iters=3):
    v = torch.ones(a.shape[0])
    i = 0
    while i < iters:
        v = a @ v
        v = v / v.norm()
        i += 1
    return v


power_iter(torch.randn(4, 4))
