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


PAIRS = '''\
import torch


@torch.compile(backend="eager")
def report(x):
    losses = {"mse": (x * 2).mean(), "l1": x.abs().mean()}
    total = x.new_zeros(())
    for name, value in sorted(losses.items()):
        total = total + value
    names = ["b", "a"]
    parts = [x.sum(), x.max()]
    ranked = sorted(zip(names, parts))
    first = sorted(losses.items(), key=lambda kv: kv[0])
    return total + ranked[0][1] + first[0][1]


report(torch.randn(8))
'''


def test_sorting_pairs_of_tensors_without_key_is_flagged(tmp_path):
    """BRK267 (torch < 2.14): tuples holding tensors sorted with no key; a key reading the name
    is traced."""
    found = rule_lines(static_findings(tmp_path, {"train.py": PAIRS}))
    assert {("BRK267", 8), ("BRK267", 12)} <= found, found
    assert not {(rule, line) for rule, line in found if line == 13}, found


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_breaks_on_sorting_pairs_before_2_14_only(tmp_path):
    """Dynamo 2.13 breaks on both sorts (GB0207); 2.14 and 2.15 trace them, and the rule is off
    there, so `breakscan run` reports nothing on either line."""
    import torch

    from breakscan.config import parse_version
    from tests.conftest import break_statuses, run_findings, write_files

    write_files(tmp_path, {"train.py": PAIRS})
    found = break_statuses(run_findings(tmp_path, "train.py"))
    if parse_version(torch.__version__) < (2, 14):
        assert {("BRK267", "train.py", 8, "confirmed"), ("BRK267", "train.py", 12, "confirmed")} <= found, found
        assert not {f for f in found if f[3] in ("refuted", "observed")}, found
    else:
        assert not {f for f in found if f[2] in (8, 12)}, found
