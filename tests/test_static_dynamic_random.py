"""BRK266: under `torch.compile(dynamic=True)` a traced `random` call given a symbolic bound (a
parameter of the region function, a size) is not traced (GB0007), and its number is a Python
one: no BRK101/BRK264 on what follows. A literal or module-constant bound is traced; without
`dynamic=True` the same calls are traced into tensors (then a branch on one breaks, BRK101).

Measured with `breakscan run` on torch 2.13 and 2.15 (the rule's examples also on 2.14).
"""

from __future__ import annotations

import pytest

from tests.conftest import assert_dynamo_confirms, break_statuses, rule_lines, run_findings, static_findings, write_files

SOURCE = '''\
import random

import torch

MAX_SHIFT = 3


def mask_along(spec, width):
    w = random.randint(0, width)
    if w == 0:
        return spec
    return spec * 0.5


def scale(spec, limit):
    k = random.randint(1, limit)
    return spec * k


@torch.compile(dynamic=True)
def augment(spec, conf):
    spec = mask_along(spec, conf["width"])
    spec = scale(spec, 2)
    n = random.randint(1, spec.shape[0])
    m = random.randint(0, MAX_SHIFT)
    return spec * n + m


for _ in range(2):
    augment(torch.randn(4, 8), {"width": 4})
'''
DYNAMIC_BREAKS = [("BRK266", 9), ("BRK266", 24)]
# the branch on the Python number `w`; a literal bound (`scale(spec, 2)`); a module constant
DYNAMIC_QUIET = {10, 16, 25, 26}


def test_symbolic_bounds_are_flagged_under_dynamic_true(tmp_path):
    found = rule_lines(static_findings(tmp_path, {"train.py": SOURCE}))
    for hit in DYNAMIC_BREAKS:
        assert hit in found, found
    assert not {(rule, line) for rule, line in found if line in DYNAMIC_QUIET}, found


def test_without_dynamic_the_numbers_are_traced(tmp_path):
    found = rule_lines(static_findings(tmp_path, {"train.py": SOURCE.replace("(dynamic=True)", "")}))
    assert not {rule for rule, _ in found} & {"BRK266"}, found
    assert ("BRK101", 10) in found, found  # `w` is a 0-dim tensor drawn in the graph


@pytest.mark.dynamic
@pytest.mark.versions
def test_dynamo_confirms_symbolic_bounds(tmp_path):
    write_files(tmp_path, {"train.py": SOURCE})
    found = break_statuses(run_findings(tmp_path, "train.py"))
    assert_dynamo_confirms(found, [(rule, "train.py", line) for rule, line in DYNAMIC_BREAKS])


SIZE_MINUS_DRAW = '''\
import random

import torch


@torch.compile(dynamic=True)
def crop(spec, width):
    w = random.randint(0, width)
    start = random.randint(0, spec.shape[-1] - w)
    return spec[..., start:start + 2] * 2
'''


def test_an_untraced_draw_is_a_python_number(tmp_path):
    """`w` is drawn eagerly (BRK266), so `spec.shape[-1] - w` is a size, symbolic too: the second
    draw is not traced either (BRK266), and no BRK264 (a traced draw mixed with a number)."""
    found = rule_lines(static_findings(tmp_path, {"train.py": SIZE_MINUS_DRAW}))
    assert {("BRK266", 8), ("BRK266", 9)} <= found, found
    assert not {rule for rule, _ in found} & {"BRK264", "BRK101", "BRK258"}, found
