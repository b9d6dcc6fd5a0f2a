import torch


@torch.compile
def runs(tokens):
    values, counts = torch.unique_consecutive(tokens, return_counts=True)
    return values.float() * 2, counts


runs(torch.tensor([1, 1, 2, 2, 2, 3]))
