import numpy as np
import torch


@torch.compile
def scale(x):
    s = np.float32(x.std())
    return x / s


scale(torch.randn(10))
