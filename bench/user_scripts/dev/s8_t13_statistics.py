import statistics
import torch


@torch.compile
def spread(x):
    vals = x.tolist()
    return statistics.pstdev(vals)


spread(torch.randn(6))
