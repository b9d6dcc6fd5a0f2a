import torch

THRESHOLD = torch.tensor(0.5)

@torch.compile
def gate(x):
    if x.mean() > THRESHOLD:
        return x
    return -x

gate(torch.rand(3))
