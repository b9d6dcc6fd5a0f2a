import functools
import torch

@functools.lru_cache(maxsize=None)
def window(n):
    return torch.hann_window(n)

@torch.compile
def spectral(x):
    return x * window(x.shape[-1])

spectral(torch.randn(16))
