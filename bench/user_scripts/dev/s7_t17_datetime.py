import datetime

import torch


@torch.compile
def stamp(x):
    started = datetime.datetime.now()
    y = x.exp()
    return y, started


stamp(torch.randn(2))
