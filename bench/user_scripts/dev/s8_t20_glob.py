import glob
import torch


@torch.compile
def count_ckpts(x):
    n = len(glob.glob("/tmp/*.pt"))
    return x + n


count_ckpts(torch.randn(2))
