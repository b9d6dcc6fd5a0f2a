"""BRK230 on zipped tensors: `sorted(zip(names, scores), key=lambda p: p[1])` and
`pairs.sort(key=lambda p: p[1])` with `pairs = list(zip(boxes, scores))` compare tensors with `<`
(GB0207), in a user's script through `breakscan run` (static pass and Dynamo on the same lines).
Sorting the same pairs by their string element is traced and not flagged.
"""

from __future__ import annotations

import pytest

from tests.conftest import assert_script_confirms, requires_torch, rule_lines, static_findings

SCRIPT = '''\
import torch


@torch.compile(backend="eager")
def top_boxes(boxes, scores):
    pairs = list(zip(boxes, scores))
    pairs.sort(key=lambda p: p[1], reverse=True)
    return torch.stack([b for b, _ in pairs[:2]])


@torch.compile(backend="eager")
def by_name(boxes, names):
    ranked = sorted(zip(names, boxes), key=lambda p: p[0])
    return torch.stack([b for _, b in ranked])


@torch.compile(backend="eager")
def by_score(names, scores):
    ranked = sorted(zip(names, scores), key=lambda p: p[1])
    return [n for n, _ in ranked]


top_boxes(torch.rand(4, 4), torch.rand(4))
by_name(torch.rand(3, 4), ["b", "a", "c"])
by_score(["b", "a", "c"], torch.rand(3))
'''


def test_sorting_zipped_tensors_by_a_tensor_key_is_flagged(tmp_path):
    found = rule_lines(static_findings(tmp_path, {"train.py": SCRIPT}))
    assert {("BRK230", 7), ("BRK230", 19)} <= found, found
    assert ("BRK230", 13) not in found, found


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_sorting_zipped_tensors(tmp_path):
    assert_script_confirms(tmp_path, SCRIPT, [("BRK230", 7), ("BRK230", 19)])
