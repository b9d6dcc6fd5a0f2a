import torch


def maybe_log(x):
    if not torch.compiler.is_compiling():
        print("eager value", x.sum().item())
    return x


@torch.compile
def f(x):
    return maybe_log(x * 2) + 1


f(torch.randn(3))
