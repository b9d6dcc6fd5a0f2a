import torch

@torch.compile
def valid_mean(x, mask):
    vals = torch.masked_select(x, mask)
    return vals.mean()

valid_mean(torch.randn(8), torch.rand(8) > 0.5)
