"""Torch math on Python numbers (`torch.div(seq_len, 2, rounding_mode="floor")`) gives a 0-dim
tensor that Dynamo keeps as a constant: a size argument takes it without a break (`view`,
`new_zeros`, `torch.arange`, `chunk`, an index), but reading its value does break: a slice bound
(BRK258, GB0124), a branch (BRK101, GB0170), `range()` (BRK107) and `int()` (BRK104). Driven
through `breakscan run` on a user's script (static pass and Dynamo on the same lines).
"""

from __future__ import annotations

import pytest

from tests.conftest import assert_script_confirms, assert_script_flags, requires_torch

SCRIPT = '''\
import torch


@torch.compile(backend="eager")
def first_half(x):
    n = torch.div(x.shape[0], 2, rounding_mode="floor")
    return x[:n]


@torch.compile(backend="eager")
def bump(x):
    n = torch.div(x.shape[0], 2, rounding_mode="trunc")
    if n - 1 > 1:
        return x + 1
    return x


@torch.compile(backend="eager")
def rows(x):
    n = torch.div(x.shape[0], 2, rounding_mode="floor")
    return [x[i] for i in range(n)]


@torch.compile(backend="eager")
def quarter(x):
    return x[: int(torch.floor_divide(x.shape[0], 4))]


@torch.compile(backend="eager")
def sizes(x):
    n = torch.div(x.shape[0], 2, rounding_mode="floor")
    a = x.view(n, -1)
    b = x.new_zeros((n - 1, 2))
    c = torch.arange(n)
    d = x.chunk(n)
    return a, b, c, d, x[n], x * n


first_half(torch.randn(8))
bump(torch.randn(8))
rows(torch.randn(8))
quarter(torch.randn(8))
sizes(torch.randn(8))
'''
BREAKS = [("BRK258", 7), ("BRK101", 13), ("BRK107", 21), ("BRK104", 26)]


def test_reads_of_folded_torch_math_are_flagged_and_sizes_are_not(tmp_path):
    assert_script_flags(tmp_path, SCRIPT, BREAKS, quiet_lines=range(31, 37))


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_reads_of_folded_torch_math(tmp_path):
    assert_script_confirms(tmp_path, SCRIPT, BREAKS)
