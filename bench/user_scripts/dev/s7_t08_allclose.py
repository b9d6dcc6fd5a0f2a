import torch


@torch.compile
def maybe_skip(a, b):
    if torch.allclose(a, b):
        return a
    return a - b


maybe_skip(torch.randn(3), torch.randn(3))
