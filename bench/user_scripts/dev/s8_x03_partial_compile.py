import functools
import torch

compile_eager = functools.partial(torch.compile, backend="eager")


@compile_eager
def step(x):
    if x.sum() > 0:
        return x * 2
    return x


step(torch.randn(3))
