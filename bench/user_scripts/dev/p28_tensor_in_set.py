import torch

@torch.compile
def dedup(tokens):
    seen = set(tokens.tolist())
    return torch.tensor(sorted(seen))

dedup(torch.tensor([3, 1, 3, 2]))
