"""Boolean-mask indexing of a value whose type the static pass does not know (BRK106, GB0036).

A boolean tensor only indexes a tensor (or an array Dynamo traces as one), so `pred[valid]` with
`valid = target != ignore` is boolean-mask indexing even when `pred` came from a call the pass
cannot type (`model(images).argmax(1)` with `model` a parameter). A mask that is a tensor only by
the root parameters' convention is not enough. Static pass and Dynamo on the same lines.
"""

from __future__ import annotations

import pytest

from tests.conftest import assert_script_confirms, requires_torch, rule_lines, static_findings

SCRIPT = '''\
import torch
from torch import nn


class Meter:
    def __init__(self, n, ignore=255):
        self.n = n
        self.ignore = ignore
        self.total = torch.zeros(n, n, dtype=torch.long)

    def update(self, pred, target):
        valid = target != self.ignore
        p = pred[valid]
        t = target[valid]
        self.total += torch.bincount(t * self.n + p, minlength=self.n ** 2).view(self.n, self.n)


@torch.compile(backend="eager")
def evaluate(model, images, labels, meter):
    pred = model(images).argmax(1)
    meter.update(pred, labels)


net = nn.Conv2d(3, 4, 1)
meter = Meter(4)
labels = torch.randint(0, 4, (2, 8, 8))
labels[0, 0, 0] = 255
evaluate(net, torch.randn(2, 3, 8, 8), labels, meter)
'''


def test_a_value_of_unknown_type_indexed_by_a_mask_is_flagged(tmp_path):
    found = rule_lines(static_findings(tmp_path, {"train.py": SCRIPT}))
    assert ("BRK106", 13) in found, found
    assert ("BRK106", 14) in found, found


def test_a_mask_only_guessed_from_root_parameters_is_not_enough(tmp_path):
    # `scores` is a root's unannotated parameter never used as a tensor: `scores > 0` may
    # be a Python bool, and `table` (what another package returns) a dict keyed by it
    source = '''\
import torch

import tables


@torch.compile(backend="eager")
def lookup(scores):
    table = tables.load()
    return table[scores > 0]
'''
    assert not {hit for hit in rule_lines(static_findings(tmp_path, {"train.py": source})) if hit[0] == "BRK106"}


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_the_mask_on_a_value_of_unknown_type(tmp_path):
    assert_script_confirms(tmp_path, SCRIPT, [("BRK106", 13), ("BRK106", 14)])
