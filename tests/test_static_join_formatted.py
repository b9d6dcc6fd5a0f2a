"""`str.join` of f-strings formatting tensors (BRK246, GB0156 on 2.13 and 2.15) in a user's script
through `breakscan run`: a list comprehension over a tensor, and a generator over
`enumerate(probs)` (whose frame also falls back on that line, GB8335). Joining Python strings
and a lone f-string of a tensor are traced, and not flagged.
"""

from __future__ import annotations

import pytest

from tests.conftest import assert_script_confirms, assert_script_flags, requires_torch

SCRIPT = '''\
import torch


@torch.compile(backend="eager")
def describe(logits, names):
    probs = logits.softmax(-1)
    line = ", ".join([f"{p:.2f}" for p in probs])
    tags = " ".join(f"{n}" for n in names)
    one = f"max {probs.max():.2f}"
    return probs, line, tags, one


@torch.compile(backend="eager")
def lines(logits):
    probs = logits.softmax(-1)
    return probs, "|".join(f"{i}:{p:.1f}" for i, p in enumerate(probs))


describe(torch.randn(4), ["a", "b"])
lines(torch.randn(3))
'''
BREAKS = [("BRK246", 7), ("BRK246", 16)]


def test_join_of_formatted_tensors_is_flagged(tmp_path):
    assert_script_flags(tmp_path, SCRIPT, BREAKS, quiet_lines=[8, 9])


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_join_of_formatted_tensors(tmp_path):
    assert_script_confirms(tmp_path, SCRIPT, BREAKS)
