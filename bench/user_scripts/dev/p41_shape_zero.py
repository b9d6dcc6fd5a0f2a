import torch

@torch.compile
def safe_mean(x, keep):
    sel = x[keep]
    if sel.shape[0] == 0:
        return x.new_zeros(())
    return sel.mean()

safe_mean(torch.rand(5), torch.rand(5) > 0.5)
