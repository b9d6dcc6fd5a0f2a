"""A dict of boolean tensors keeps its values' kind: indexing with one of its masks
(`scores[masks["pos"]]`, `.get()`, a dict comprehension of comparisons or of `dtype=torch.bool`
factories) is boolean-mask indexing (BRK106, GB0036: its output shape depends on the data). A dict
of integer index tensors is traced. Static pass and Dynamo on the same lines, through
`breakscan run`.
"""

from __future__ import annotations

import pytest

from tests.conftest import assert_script_confirms, requires_torch, rule_lines, static_findings

SCRIPT = '''\
import torch


@torch.compile(backend="eager")
def split_losses(scores, labels, n):
    masks = {name: labels == i for i, name in enumerate(("neg", "pos"))}
    picked = {k: torch.zeros(n, dtype=torch.bool) for k in ("train", "val")}
    picked["train"][: n // 2] = True
    pos = scores[masks["pos"]]
    train = scores[picked["train"]]
    held = scores[picked.get("val")]
    return pos.sum() + train.mean() + held.sum()


@torch.compile(backend="eager")
def by_literal(scores, labels):
    masks = {"high": scores > 0.5, "low": scores < -0.5}
    return scores[masks["high"]].sum() - scores[masks["low"]].sum()


@torch.compile(backend="eager")
def by_index(scores):
    picks = {"head": torch.arange(2), "tail": torch.arange(2) + 4}
    return scores[picks["head"]] + scores[picks["tail"]]


split_losses(torch.randn(8), torch.randint(0, 2, (8,)), 8)
by_literal(torch.randn(8), torch.randint(0, 2, (8,)))
by_index(torch.randn(8))
'''

BREAKS = [("BRK106", 9), ("BRK106", 10), ("BRK106", 11), ("BRK106", 18)]


def test_indexing_with_a_mask_from_a_dict_of_masks_is_flagged(tmp_path):
    found = rule_lines(static_findings(tmp_path, {"train.py": SCRIPT}))
    assert set(BREAKS) <= found, found
    assert not {hit for hit in found if hit[1] in (23, 24)}, found  # integer index tensors


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_indexing_with_masks_from_a_dict(tmp_path):
    assert_script_confirms(tmp_path, SCRIPT, BREAKS)
