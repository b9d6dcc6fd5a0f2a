import torch


@torch.compile
def quantize(x, levels):
    step = (x.max() - x.min()) / levels
    n = round(x.mean().item() / step.item())
    return x - n * step


quantize(torch.randn(10), 4)
