"""A parameter annotated as a number or a tensor (`seq_len: int | torch.Tensor`) is a tensor by its
annotation, but a submodule's `forward` that every call in sight passes a Python number (a size
from a shape) gets that number: `int(seq_len)` there is no graph break (BRK104 not flagged),
while the same call given a tensor still is. The calls are `self.pos(seq_len)` on an attribute
`__init__` binds to the class in either branch of an `if` (both classes count). Static pass and
Dynamo on the same lines.
"""

from __future__ import annotations

import pytest

from tests.conftest import assert_script_confirms, requires_torch, rule_lines, static_findings

SCRIPT = '''\
import torch
from torch import nn


class RotaryTable(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.register_buffer("freqs", torch.randn(64, dim))

    def forward(self, seq_len: int | torch.Tensor):
        n = int(seq_len)
        return self.freqs[:n]


class LearnedTable(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.table = nn.Embedding(64, dim)

    def forward(self, seq_len):
        return self.table.weight[:seq_len]


class Encoder(nn.Module):
    def __init__(self, dim=8, rotary=True):
        super().__init__()
        if rotary:
            self.pos = RotaryTable(dim)
        else:
            self.pos = LearnedTable(dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        batch, seq_len = x.shape[:2]
        return self.proj(x) + self.pos(seq_len)


model = torch.compile(Encoder(), backend="eager")
print(model(torch.randn(2, 5, 8)).shape)
'''

TENSOR_PASSED = SCRIPT.replace("self.pos(seq_len)", "self.pos(torch.tensor(seq_len))")


def test_a_number_passed_to_a_number_or_tensor_parameter_is_a_number(tmp_path):
    assert ("BRK104", 11) not in rule_lines(static_findings(tmp_path, {"train.py": SCRIPT}))


def test_a_tensor_passed_to_a_number_or_tensor_parameter_stays_a_tensor(tmp_path):
    assert ("BRK104", 11) in rule_lines(static_findings(tmp_path, {"train.py": TENSOR_PASSED}))


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_traces_the_number_and_breaks_on_the_tensor(tmp_path):
    assert_script_confirms(tmp_path / "number", SCRIPT, [])
    assert_script_confirms(tmp_path / "tensor", TENSOR_PASSED, [("BRK104", 11)])
