import torch


class Frozen:
    __slots__ = ("value",)


@torch.compile
def wrap(x):
    f = Frozen()
    object.__setattr__(f, "value", x * 2)
    return f.value + 1


wrap(torch.randn(3))
