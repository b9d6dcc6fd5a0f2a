import sys

import torch


@torch.compile
def report(x):
    sys.stdout.write("computing\n")
    return x.sigmoid()


report(torch.randn(2))
