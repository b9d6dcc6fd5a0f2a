"""Dynamic-pass samples for recompiles: a guarded Python value, and a recompile-limit hit."""

import torch


def scaled(x, flag):
    if flag:
        return x * 2
    return x


@torch.no_grad()
def by_mode(x, mode):
    if mode == "double":
        return x * 2
    return x + 1


def breakscan_examples():
    x = torch.ones(3)
    yield scaled, (x, True)
    yield scaled, (x, False)
    for i in range(10):
        yield by_mode, (x, f"mode{i}")
