import os

import torch


@torch.compile
def scaled(x):
    factor = float(os.getenv("SCALE", "2.0"))
    return x * factor


scaled(torch.randn(3))
