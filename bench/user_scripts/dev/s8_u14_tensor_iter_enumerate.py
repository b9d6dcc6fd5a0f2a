import torch


@torch.compile
def running_max(x):
    best = x[0]
    best_i = 0
    for i, v in enumerate(x):
        if v > best:
            best, best_i = v, i
    return best, best_i


running_max(torch.randn(5))
