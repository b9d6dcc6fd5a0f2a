"""Dynamic-pass samples that take the child process down; pick one with `--entry crashes.py:FUNC`."""

import ctypes
import os
import time

import torch


def item_first(x):
    return x * x.sum().item()


def hang(x):
    while True:
        time.sleep(0.05)


def segfault(x):
    ctypes.string_at(0)
    return x


def hard_exit(x):
    os._exit(3)


def _with(fn):
    x = torch.ones(3)
    yield item_first, (x,)
    yield fn, (x,)


def examples_hang():
    yield hang, (torch.ones(3),)


def examples_segfault():
    yield from _with(segfault)


def examples_exit():
    yield from _with(hard_exit)
