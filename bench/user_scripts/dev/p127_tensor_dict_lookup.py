import torch

EMB = {0: torch.ones(4), 1: torch.zeros(4)}

@torch.compile
def lookup(x, key):
    return x + EMB[int(key)]

lookup(torch.rand(4), torch.tensor(1))
