import torch


@torch.compile
def nbytes(x):
    size = x.untyped_storage().nbytes()
    return x * 2, size


nbytes(torch.randn(4))
