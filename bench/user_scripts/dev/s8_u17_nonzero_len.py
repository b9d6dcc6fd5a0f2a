import torch


@torch.compile
def count_active(mask):
    idx = mask.nonzero()
    return len(idx)


count_active(torch.tensor([True, False, True]))
