"""Asserts in compiled code: which ones Dynamo traces and which break (torch 2.13, eager backend).

`assert <tensor>` with no message or a constant string is traced; any other message makes Dynamo
branch on the tensor (GB0170); the test runs as anywhere, so `.item()`, `t1 and t2` and a list
comparison holding a tensor break inside it. The message runs only when the assert fails.
"""

from __future__ import annotations

import pytest

from breakscan.findings import Kind, Status
from breakscan.merge import merge
from tests.conftest import rule_lines, static_findings

SNIPPET = '''
import torch


@torch.compile
def check(x: torch.Tensor, y: torch.Tensor, n: int) -> torch.Tensor:
    assert x.sum() > -100
    assert (x > -1).all(), "constant message"
    assert (x > -2).all(), ("parenthesised " "constant")
    assert n > 0, f"n is {x.shape}"
    assert (x > -3).all(), f"bad {n}"
    assert x.max().item() <= n + 100
    assert x.isnan().sum() == 0 and y.isnan().sum() == 0, "NaN"
    mask = x.eq(1)
    if not mask.any():
        mask = None
    return x + 1


def breakscan_examples():
    yield check, (torch.ones(3), torch.ones(3), 5)
'''
BREAKING = {("BRK101", 11), ("BRK102", 12), ("BRK101", 13), ("BRK101", 15)}
TRACED = {7, 8, 9, 10}


def test_static_pass_flags_the_asserts_that_break(tmp_path):
    found = rule_lines(f for f in static_findings(tmp_path, SNIPPET) if f.kind is Kind.GRAPH_BREAK)
    assert found == BREAKING
    assert not {line for _, line in found} & TRACED


@pytest.mark.dynamic
def test_dynamo_breaks_exactly_where_the_static_pass_says(tmp_path):
    pytest.importorskip("torch")
    from breakscan.dynamic.runner import run_dynamic

    static = static_findings(tmp_path, SNIPPET)
    dynamic = run_dynamic(tmp_path / "model.py", project_root=tmp_path, timeout=300)
    merged = merge(static, dynamic.findings, dynamic.traced_lines)
    confirmed = {(f.rule_id, f.line) for f in merged if f.status is Status.CONFIRMED}
    assert confirmed == BREAKING
    observed = [f for f in merged if f.status is Status.OBSERVED and f.kind is Kind.GRAPH_BREAK]
    assert observed == []
    traced = dynamic.traced_lines.get(str((tmp_path / "model.py").resolve()), set())
    assert TRACED <= traced, "the traced asserts were run without a break"
