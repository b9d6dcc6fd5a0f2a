"""BRK270: `.dtype`, `.flags` and `.base` of a NumPy array in a region. Dynamo traces arrays as
tensors but not those attributes (GB0157). The arrays are the ones the code makes known: `t.numpy()`,
a NumPy array function, a local bound once to one, an `isinstance(v, np.ndarray)` test (the `if` body
up to a rebinding, the right of an `and`). Checked with `breakscan run` on 2.13 and 2.15; the
negatives compile without a break."""

from __future__ import annotations

import pytest

from tests.conftest import assert_script_confirms, requires_torch, rule_lines, static_findings

BREAKING = '''
import numpy as np
import torch


@torch.compile(backend="eager")
def to_numpy_dtype(x):
    dt = torch.empty([], dtype=x.dtype).numpy().dtype
    return x + 1, dt


@torch.compile(backend="eager")
def checked(data):
    if isinstance(data, np.ndarray) and data.dtype == np.float64:
        data = data.astype(np.float32)
    return torch.as_tensor(data) * 2


@torch.compile(backend="eager")
def contiguous(data):
    if isinstance(data, np.ndarray):
        if data.flags["C_CONTIGUOUS"]:
            return torch.from_numpy(data) + 1
    return torch.as_tensor(data)


@torch.compile(backend="eager")
def made_here(x):
    a = np.zeros(3)
    b = x.numpy()
    return x * a.size + b.base is None


def main():
    x = torch.randn(4)
    to_numpy_dtype(x)
    checked(np.ones(4))
    checked(x)
    contiguous(np.ones(4))
    made_here(x)


if __name__ == "__main__":
    main()
'''

EXPECTED = {("BRK270", 8), ("BRK270", 14), ("BRK270", 22), ("BRK270", 31)}

CLEAN = '''
import numpy as np
import torch


@torch.compile(backend="eager")
def fine(x, data):
    a = x.numpy()
    out = x + a.ndim + a.itemsize + a.shape[0] + (x.dtype == torch.float32)
    if isinstance(data, (np.ndarray, float)):
        out = out + 1
    if isinstance(data, np.ndarray):
        data = torch.as_tensor(data)
        out = out + (data.dtype == torch.float32)
    else:
        out = out + (data.dtype == torch.float32)
    return out


def main():
    fine(torch.randn(4), torch.ones(2))


if __name__ == "__main__":
    main()
'''


def test_untraced_array_attributes_are_flagged(tmp_path):
    assert rule_lines(static_findings(tmp_path, {"train.py": BREAKING})) >= EXPECTED


def test_tensor_attributes_and_other_arms_are_not(tmp_path):
    assert not {r for r, _ in rule_lines(static_findings(tmp_path, {"train.py": CLEAN})) if r == "BRK270"}


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms(tmp_path):
    assert_script_confirms(tmp_path, BREAKING, EXPECTED)


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_traces_the_negatives(tmp_path):
    assert_script_confirms(tmp_path, CLEAN, set())
