"""Tensors a module reads without naming them, in a user's script through `breakscan run`:
- a property getter of the class (`self.scale` returning `self.log_scale.exp()`): Dynamo inlines
  the getter, so a branch on it is data-dependent (BRK101, GB0170); a property returning a Python
  number is not flagged;
- `super().forward(x)` in a module subclass returns a tensor, as another module's forward does;
- the `.values` / `.indices` of `x.max(-1)`, `topk`, `sort` (torch.return_types fields) are tensors.
"""

from __future__ import annotations

import pytest

from tests.conftest import assert_script_confirms, assert_script_flags, requires_torch

SCRIPT = '''\
import torch
import torch.nn as nn


class Scaler(nn.Module):
    def __init__(self):
        super().__init__()
        self.log_scale = nn.Parameter(torch.zeros(()))
        self.n = 3

    @property
    def scale(self):
        return self.log_scale.exp()

    @property
    def size(self):
        return self.n * 2

    def forward(self, x):
        if self.size > 2:
            x = x + 1
        if self.scale > 2:
            return x * 2
        return x


class Clipped(Scaler):
    def forward(self, x):
        y = super().forward(x)
        if y.norm() > 10:
            return y / y.norm()
        return y


class EarlyExit(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList(nn.Linear(4, 4) for _ in range(2))
        self.exit = nn.Linear(4, 2)

    def forward(self, x):
        for block in self.blocks:
            x = block(x).relu()
            conf = self.exit(x).softmax(-1).max(-1).values
            if (conf > 0.9).all():
                break
        return self.exit(x)


torch.compile(Scaler(), backend="eager")(torch.randn(3))
torch.compile(Clipped(), backend="eager")(torch.randn(3))
torch.compile(EarlyExit(), backend="eager")(torch.randn(2, 4))
'''
BREAKS = [("BRK101", 22), ("BRK101", 30), ("BRK101", 45)]


def test_properties_super_forward_and_return_type_fields_are_tensors(tmp_path):
    assert_script_flags(tmp_path, SCRIPT, BREAKS, quiet_lines=[20])


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_branches_on_module_reads(tmp_path):
    assert_script_confirms(tmp_path, SCRIPT, BREAKS)
