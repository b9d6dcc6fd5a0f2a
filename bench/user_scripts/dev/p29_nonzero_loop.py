import torch

@torch.compile
def scatter_rows(x, mask):
    out = torch.zeros_like(x)
    for i in mask.nonzero().flatten():
        out[i] = x[i] * 2
    return out

scatter_rows(torch.rand(4, 2), torch.tensor([True, False, True, False]))
