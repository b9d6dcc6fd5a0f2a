import functools
import operator

import torch


@torch.compile
def product_of(xs):
    total = functools.reduce(operator.mul, xs)
    if total.sum() > 0:
        return total
    return -total


product_of([torch.randn(3), torch.randn(3)])
