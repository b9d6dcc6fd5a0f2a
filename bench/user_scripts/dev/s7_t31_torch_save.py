import io

import torch


@torch.compile
def checkpoint_act(x):
    buf = io.BytesIO()
    torch.save(x, buf)
    return x * 2


checkpoint_act(torch.randn(3))
