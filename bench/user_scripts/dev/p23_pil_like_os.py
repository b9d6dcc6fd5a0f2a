import os
import tempfile

import torch

@torch.compile
def maybe_save(x, path):
    y = x + 1
    if not os.path.exists(path):
        torch.save(y, path)
    return y

maybe_save(torch.rand(3), os.path.join(tempfile.mkdtemp(), "out.pt"))
