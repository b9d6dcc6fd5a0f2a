"""BRK269: `torch.as_tensor`/`torch.asarray` of a list or tuple holding tensors. Eager builds the
tensor; under Dynamo the fake-tensor run fails (GB4315) and the compiled call raises
TorchRuntimeError (measured on 2.13 and 2.15). `torch.tensor([...])`, `torch.stack` and
`as_tensor` of one tensor or of numbers are traced, and parameters that are tensors only by the
root convention (`as_tensor((x, y))` with `x`, `y` possibly ints) are not flagged."""

from __future__ import annotations

import pytest

from tests.conftest import assert_script_confirms, requires_torch, rule_lines, static_findings

BREAKING = '''
import torch


@torch.compile(backend="eager")
def summary(x):
    parts = x[:2].split(1)
    return torch.asarray(parts) * torch.as_tensor((x.min(), 2.0))


def main():
    summary(torch.randn(8))


if __name__ == "__main__":
    main()
'''

CLEAN = '''
import torch


@torch.compile(backend="eager")
def summary(x, y):
    stats = torch.stack([x.mean(), x.std()]) + torch.tensor([x.min(), x.max()])
    return stats * torch.as_tensor(x.sum()) * torch.as_tensor([1.0, 2.0]) * torch.as_tensor((y, y))


def main():
    summary(torch.randn(8), 3)


if __name__ == "__main__":
    main()
'''


def test_sequences_of_tensors_are_flagged(tmp_path):
    assert ("BRK269", 8) in rule_lines(static_findings(tmp_path, {"train.py": BREAKING}))


def test_traced_conversions_are_not(tmp_path):
    assert not {r for r, _ in rule_lines(static_findings(tmp_path, {"train.py": CLEAN}))}


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_fails_on_the_flagged_line(tmp_path):
    # Dynamo fails at the first of the two calls on the line, then the program stops (BRK902).
    assert_script_confirms(tmp_path, BREAKING, {("BRK269", 8)})


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_traces_the_clean_conversions(tmp_path):
    assert_script_confirms(tmp_path, CLEAN, set())
