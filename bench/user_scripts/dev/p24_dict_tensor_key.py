import torch

@torch.compile
def group_sum(values, ids):
    totals = {}
    for v, i in zip(values, ids):
        totals[int(i)] = totals.get(int(i), 0) + v
    return totals

group_sum(torch.rand(4), torch.tensor([0, 1, 0, 1]))
