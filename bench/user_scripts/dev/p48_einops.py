import torch
from einops import rearrange

@torch.compile
def heads(x):
    return rearrange(x, "b n (h d) -> b h n d", h=2)

heads(torch.rand(1, 3, 8))
