import torch

@torch.compile
def repeat_until(x, steps):
    for _ in range(int(steps.item())):
        x = x * 0.9
    return x

repeat_until(torch.rand(3), torch.tensor(3))
