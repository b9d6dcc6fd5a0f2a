import weakref

import torch


class Holder:
    pass


@torch.compile
def keep(x, holder):
    ref = weakref.ref(holder)
    return x * 2, ref


keep(torch.randn(2), Holder())
