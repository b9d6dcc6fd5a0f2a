import torch


@torch.compile
def iterate(x):
    done = torch.zeros(x.shape[0], dtype=torch.bool)
    steps = 0
    while not done.all() and steps < 10:
        x = x * 0.5
        done = x.abs().max(-1).values < 0.1
        steps += 1
    return x


iterate(torch.randn(4, 3))
