import torch

cache = {}

@torch.compile
def memo(x):
    key = id(x)
    if key in cache:
        return cache[key]
    y = x * 3
    cache[key] = y
    return y

memo(torch.rand(3))
