import torch
import torch.nn.functional as F


@torch.compile
def resize_to(x, size):
    return F.interpolate(x, size=tuple(size.tolist()), mode="nearest")


resize_to(torch.randn(1, 1, 4, 4), torch.tensor([8, 8]))
