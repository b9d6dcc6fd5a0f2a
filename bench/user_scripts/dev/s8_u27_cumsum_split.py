import torch


@torch.compile
def split_by_lengths(x, lengths):
    return torch.split(x, lengths.tolist())


split_by_lengths(torch.randn(6, 2), torch.tensor([2, 4]))
