import copy
import torch

@torch.compile
def snapshot(x, cfg):
    saved = copy.deepcopy(cfg)
    return x * saved["scale"]

snapshot(torch.randn(4), {"scale": 2.0})
