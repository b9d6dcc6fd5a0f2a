import torch


@torch.compile
def gather_positive(x):
    mask = x > 0
    count = mask.sum()
    out = torch.zeros(count.item())
    out.copy_(x[mask])
    return out


gather_positive(torch.randn(8))
