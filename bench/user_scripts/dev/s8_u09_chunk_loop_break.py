import torch


@torch.compile
def first_positive_chunk(x):
    for chunk in x.split(2):
        if (chunk > 0).all():
            return chunk
    return x[:2]


first_positive_chunk(torch.randn(8))
