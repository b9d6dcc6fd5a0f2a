from pathlib import Path
import torch

OUT = Path("/tmp")


@torch.compile
def save_name(x, epoch):
    name = OUT / f"ckpt_{epoch}.pt"
    return x * 2, str(name)


save_name(torch.randn(2), 3)
