import copy
import torch

@torch.compile
def ema_target(params):
    target = copy.deepcopy(params)
    return [t * 0.99 for t in target]

ema_target([torch.rand(3), torch.rand(3)])
