import torch


@torch.compile
def safe_mean(x, mask):
    selected = x[mask]
    if selected.numel() == 0:
        return x.new_zeros(())
    return selected.mean()


safe_mean(torch.randn(6), torch.tensor([1, 0, 1, 0, 0, 1], dtype=torch.bool))
