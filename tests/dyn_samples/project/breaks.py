"""Dynamic-pass samples: each function is one entry of `breakscan_examples` (line numbers matter)."""

import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "extlib"))
import extlib_helpers  # noqa: E402


def item_break(x):
    y = x * 2
    s = y.sum().item()
    return y + s


def print_top(x):
    print("entering print_top")
    return x.sin() + 1


def if_tensor(x):
    y = x.cos()
    if y.sum() > 0:
        return y + 1
    return y - 1


def data_ptr_fallback(x):
    return x + x.data_ptr()


def clean(x):
    return torch.relu(x @ x.T).sum(dim=0)


def shapes(x):
    return x * 2 + 1


def raises(x):
    y = x + 1
    raise ValueError("bad input in raises")


def calls_library(x):
    y = x + 1
    return extlib_helpers.scale_by_max(y)


def exits(x):
    sys.exit(3)


class Gate(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        h = self.lin(x)
        if self.training:
            h = h * 2
        return h


def breakscan_examples(device):
    x = torch.randn(4, 4, device=device)
    yield item_break, (x,)
    yield print_top, (x,)
    yield if_tensor, (torch.ones(4, device=device),)
    yield data_ptr_fallback, (x,)
    yield clean, (x,)
    yield shapes, (torch.randn(2, device=device),)
    yield shapes, (torch.randn(3, device=device),)
    yield raises, (x,)
    yield calls_library, (x,)
    yield exits, (x,)
    gate = Gate().to(device)
    yield gate, (x,)
    gate.eval()
    yield gate, (x,), {}
