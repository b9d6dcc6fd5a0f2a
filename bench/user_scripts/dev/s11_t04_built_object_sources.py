import torch


class Meter:
    def __init__(self):
        self.total = torch.zeros(())

    def update(self, v):
        self.total = self.total + v
        if v > 10:
            print("big")

    def plain(self, v):
        print("x")
        return v


@torch.compile(backend="eager")
def a(x):
    m = Meter()
    m.update(x.sum())
    return x + 1


@torch.compile(backend="eager")
def b(x):
    m = Meter()
    y = x.sum()
    print("between")
    m.update(y)
    return x + 1


@torch.compile(backend="eager")
def c(x, m):
    m.update(x.sum())
    return x + 1


@torch.compile(backend="eager")
def d(x):
    m = Meter()
    out = m.plain(x)
    return out + 1


def helper(v):
    if v > 10:
        print("big")
    return v


@torch.compile(backend="eager")
def e(x):
    m = Meter()
    helper(x.sum())
    return m.total + x


for _ in range(2):
    a(torch.randn(3)); b(torch.randn(3)); c(torch.randn(3), Meter()); d(torch.randn(3)); e(torch.randn(3))
