import itertools
import torch


@torch.compile
def runs(labels):
    ids = labels.tolist()
    return [(k, len(list(g))) for k, g in itertools.groupby(ids)]


runs(torch.tensor([1, 1, 2, 2, 2, 3]))
