"""Values that are tensors although they come through a list or an index, in a user's script
through `breakscan run` (static pass and Dynamo on the same lines, 2.13 and 2.15):
- `list(t.unique())` is a list of 0-dim tensors: a comprehension filtering them (`i != 0`)
  branches on each (GB0170); `if not ids:` on the list does not break;
- `torch.nonzero(m)` and `x.unique()` return one tensor (a tuple only with `as_tuple=True` or
  `return_counts=True`): `pairs[:, 0]` is a tensor, and `i not in matched` tests membership in it
  (BRK259, GB0124).
"""

from __future__ import annotations

import pytest

from tests.conftest import assert_script_confirms, assert_script_flags, requires_torch

SCRIPT = '''\
import torch


def matched_rows(iou):
    pairs = torch.nonzero(iou > 0.5)
    return pairs[:, 0]


@torch.compile(backend="eager")
def unmatched(labels, iou):
    ids = list(labels.unique())
    ids = [i for i in ids if i != 0]
    if not ids:
        return []
    matched = matched_rows(iou)
    values, counts = torch.unique(labels, return_counts=True)
    return [i for i in ids if i not in matched], counts.sum(), values


unmatched(torch.randint(0, 4, (8, 8)), torch.rand(3, 3))
'''
BREAKS = [("BRK105", 11), ("BRK101", 12), ("BRK105", 5), ("BRK105", 16), ("BRK259", 17)]


def test_rows_of_unique_and_nonzero_are_tensors(tmp_path):
    assert_script_flags(tmp_path, SCRIPT, BREAKS, quiet_lines=[13])


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_breaks_on_tensor_rows(tmp_path):
    assert_script_confirms(tmp_path, SCRIPT, BREAKS)
