"""`for name, value in losses.items():` over a dict of tensors binds `value` to a tensor (a dict
annotated `Dict[str, Tensor]`, or given as a dict display at the call site), so `if value > 0:` is
a data-dependent branch (BRK101, GB0170), in a user's script through `breakscan run`. A branch on
an `Optional[int]` parameter given a Python number stays unflagged.
"""

from __future__ import annotations

import pytest

from tests.conftest import assert_script_confirms, assert_script_flags, requires_torch

SCRIPT = '''\
from typing import Dict, Union

import torch


@torch.compile(backend="eager")
def total(losses: Dict[str, torch.Tensor]):
    out = 0
    for name, value in losses.items():
        if value > 0:
            out = out + value
    return out


@torch.compile(backend="eager")
def total_called(losses):
    out = 0
    for name, value in losses.items():
        if value > 0:
            out = out + value
    return out


@torch.compile(backend="eager")
def warmup(x, step: Union[int, None] = None):
    if step is not None and step > 10:
        return x * 0.5
    return x


total({"a": torch.tensor(1.0), "b": torch.tensor(-2.0)})
total_called({"a": torch.tensor(1.0), "b": torch.tensor(-2.0)})
warmup(torch.ones(3), 12)
'''
BREAKS = [("BRK101", 10), ("BRK101", 19)]


def test_dict_items_values_are_tensors(tmp_path):
    assert_script_flags(tmp_path, SCRIPT, BREAKS, quiet_lines=[23])


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_dict_items_branches(tmp_path):
    assert_script_confirms(tmp_path, SCRIPT, BREAKS)
