import torch


def noisy_act(x):
    print("activating")
    return x.relu()


@torch.compile
def apply_twice(fn, x):
    return fn(fn(x))


apply_twice(noisy_act, torch.randn(3))
