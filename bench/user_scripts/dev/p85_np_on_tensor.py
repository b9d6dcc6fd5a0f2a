import numpy as np
import torch

@torch.compile
def scale(x):
    n = np.sqrt(x.shape[-1])
    return x / n, np.log(x.abs().sum().detach().numpy())

scale(torch.rand(4))
