import torch
import torch.nn as nn


class Meter:
    def __init__(self):
        self.total = torch.zeros(())

    def update(self, v):
        self.total = self.total + v
        if v > 10:
            print("big")


def inner(x):
    m = Meter()
    m.update(x.sum())
    return x * 2


@torch.compile(backend="eager")
def root(x):
    y = x + 1
    y = inner(y)
    return y - 1


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        h = self.lin(x)
        m = Meter()
        m.update(h.sum())
        return h.relu()


@torch.compile(backend="eager")
def loop(x):
    for i in range(2):
        m = Meter()
        m.update(x.sum())
    return x


@torch.compile(backend="eager")
def after(x):
    m = Meter()
    m.update(x.sum())
    z = x.tolist()
    return x


net = torch.compile(Net(), backend="eager")
for _ in range(2):
    root(torch.randn(3)); net(torch.randn(2, 3)); loop(torch.randn(3)); after(torch.randn(3))
