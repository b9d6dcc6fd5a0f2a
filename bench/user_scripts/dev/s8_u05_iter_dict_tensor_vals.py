import torch


@torch.compile
def total(losses):
    out = 0
    for name, value in losses.items():
        if value > 0:
            out = out + value
    return out


total({"a": torch.tensor(1.0), "b": torch.tensor(-2.0)})
