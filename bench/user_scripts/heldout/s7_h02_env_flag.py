import os

import torch

DEBUG = os.environ.get("MY_DEBUG") == "1"


@torch.compile
def layer(x, w):
    y = x @ w
    if DEBUG:
        print(y)
    return torch.tanh(y)


layer(torch.randn(2, 3), torch.randn(3, 3))
