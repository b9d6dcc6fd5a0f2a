"""Kinds of `sum`, `max`/`min` and `functools.reduce` over tensors, in a user's script through
`breakscan run` (static pass and Dynamo on the same lines): `sum(losses)` of a list of tensors in
an unannotated helper (read again with the call's arguments), `sum(...)` of a generator of
tensors and `functools.reduce(operator.mul, tensors)` are tensors, so branching on them is BRK101.
`sum(len(t) for t in ...)` and `max` of shapes stay Python numbers and are not flagged.
"""

from __future__ import annotations

import pytest

from tests.conftest import assert_script_confirms, assert_script_flags, requires_torch

SCRIPT = '''\
import functools
import operator

import torch


def mean_loss(losses):
    total = sum(losses)
    return total / len(losses)


@torch.compile(backend="eager")
def combine(a, b):
    loss = mean_loss([a.mean(), b.mean()])
    if loss > 0:
        a = a * 2
    s = sum(t.sum() for t in (a, b))
    if s > 0:
        b = b + 1
    p = functools.reduce(operator.mul, [a, b])
    if p.sum() > 0:
        p = p - 1
    n = sum(len(t) for t in (a, b))
    if n > 3:
        p = p * n
    m = max(a.shape[0], b.shape[0])
    return p, m


combine(torch.randn(3), torch.randn(3))
'''

EXPECTED = [("BRK101", 15), ("BRK101", 18), ("BRK101", 21)]


def test_sums_and_reductions_of_tensors_are_tensors(tmp_path):
    assert_script_flags(tmp_path, SCRIPT, EXPECTED, quiet_lines=(24, 26))


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_branches_on_sums_of_tensors(tmp_path):
    assert_script_confirms(tmp_path, SCRIPT, EXPECTED)
