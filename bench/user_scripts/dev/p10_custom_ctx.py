import contextlib
import torch

@contextlib.contextmanager
def scaled(factor):
    yield factor * 2

@torch.compile
def f(x):
    with scaled(3) as s:
        y = x * s
    return y

f(torch.rand(3))
