import torch


@torch.compile
def first_hits(mask):
    idx = torch.nonzero_static(mask, size=4, fill_value=-1)
    return idx.squeeze(-1)


first_hits(torch.tensor([True, False, True, True, False]))
