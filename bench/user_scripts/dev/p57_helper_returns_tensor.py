import torch

def compute_scale(x):
    return x.abs().max()

@torch.compile
def quantize(x):
    s = compute_scale(x)
    if s == 0:
        return x
    return torch.round(x / s * 127)

quantize(torch.rand(4))
