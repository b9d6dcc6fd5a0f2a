import torch
import torch.nn.functional as F

@torch.compile
def upsample(x, scale):
    return F.interpolate(x, scale_factor=float(scale), mode="nearest")

upsample(torch.rand(1, 1, 4, 4), torch.tensor(2.0))
