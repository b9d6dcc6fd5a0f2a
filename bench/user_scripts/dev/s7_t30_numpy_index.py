import numpy as np
import torch

PERM = np.array([2, 0, 1])


@torch.compile
def permute(x):
    return x[:, PERM]


permute(torch.randn(2, 3))
