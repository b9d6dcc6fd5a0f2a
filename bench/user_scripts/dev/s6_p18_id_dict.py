import torch

cache = {}

@torch.compile
def memo(x):
    key = id(x)
    if key not in cache:
        cache[key] = x * 2
    return cache[key]

memo(torch.randn(4))
