import torch

def apply_bias(x, cfg):
    bias = cfg.get("bias")
    if bias is not None and bias.abs().sum() > 0:
        x = x + bias
    return x

@torch.compile
def f(x, b):
    return apply_bias(x, {"bias": b})

f(torch.rand(3), torch.rand(3))
