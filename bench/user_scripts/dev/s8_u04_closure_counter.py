import torch


def make_step():
    count = 0

    def step(x):
        nonlocal count
        count += 1
        return x * count

    return step


step = torch.compile(make_step())
step(torch.randn(3))
step(torch.randn(3))
