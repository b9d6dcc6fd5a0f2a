import torch

@torch.compile
def newton_sqrt(a):
    x = a.clone()
    while (x * x - a).abs().max() > 1e-4:
        x = 0.5 * (x + a / x)
    return x

newton_sqrt(torch.rand(3) + 1)
