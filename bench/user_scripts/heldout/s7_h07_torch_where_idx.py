import torch


@torch.compile
def select_positive(x):
    idx = torch.where(x > 0)[0]
    return x[idx].sum()


select_positive(torch.randn(8))
