import functools
import torch

@functools.lru_cache(maxsize=None)
def rotary_freqs(dim):
    return 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))

@torch.compile
def apply_rope(x):
    freqs = rotary_freqs(x.shape[-1])
    return x * freqs.repeat(2)

apply_rope(torch.rand(2, 8))
