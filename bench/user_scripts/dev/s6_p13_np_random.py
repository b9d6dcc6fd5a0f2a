import numpy as np
import torch

@torch.compile
def jitter(x):
    scale = np.random.uniform(0.9, 1.1)
    return x * scale

jitter(torch.randn(4))
