import torch

@torch.compile
def weighted(losses, weights):
    total = 0
    for name, loss in losses.items():
        w = weights[name]
        if w > 0:
            total = total + w * loss
    return total

weighted({"a": torch.rand(()), "b": torch.rand(())}, {"a": torch.tensor(1.0), "b": torch.tensor(0.0)})
