"""A prediction behind a test on the same line (`if self.training and p > 0 and random() < p:`,
`a if flag else f(x)`) carries the test's lines (`extra["guard_lines"]`): Dynamo tracing that
line shows that the test ran, not that the guarded call did, so it does not refute the finding.

Measured on torch 2.13 (backend "eager"): with `layer_dropout=0.0`, or in eval mode, `random()`
never runs and the line traces without a break; with `layer_dropout=0.5` in train mode it breaks
there (GB0007, `random.random` skipped).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import break_statuses, cli_findings, requires_torch, write_files

LAYERS = """
    from random import random

    import torch
    from torch import nn


    class Stack(nn.Module):
        def __init__(self, layer_dropout=0.0):
            super().__init__()
            self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(2)])
            self.layer_dropout = layer_dropout

        def forward(self, x):
            for layer in self.layers:
                if self.training and self.layer_dropout > 0.0 and random() < self.layer_dropout:
                    continue
                x = layer(x)
            return x


    def breakscan_examples():
        yield Stack(), (torch.randn(2, 4),)
        yield Stack().train(), (torch.randn(2, 4),)
"""


def test_a_call_behind_a_same_line_test_carries_the_tests_lines(tmp_path: Path) -> None:
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/layers.py": LAYERS})
    findings = [f for f in cli_findings(tmp_path, "pkg", "--no-dynamic", "--no-cache") if f["rule_id"] == "BRK205"]
    assert [(f["line"], f["extra"].get("guard_lines")) for f in findings] == [(16, [16])]


def test_a_call_on_its_own_line_carries_no_guard(tmp_path: Path) -> None:
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/layers.py": LAYERS.replace(
        "if self.training and self.layer_dropout > 0.0 and random() < self.layer_dropout:",
        "if (self.training and self.layer_dropout > 0.0\n                    and random() < self.layer_dropout):")})
    findings = [f for f in cli_findings(tmp_path, "pkg", "--no-dynamic", "--no-cache") if f["rule_id"] == "BRK205"]
    assert [(f["line"], f["extra"].get("guard_lines")) for f in findings] == [(17, None)]


@pytest.mark.dynamic
@requires_torch
def test_dynamo_tracing_the_test_alone_leaves_the_finding_predicted(tmp_path: Path) -> None:
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/layers.py": LAYERS})
    statuses = break_statuses(cli_findings(tmp_path, "pkg", "--no-cache", "--backend", "eager"))
    assert statuses == {("BRK205", "layers.py", 16, "predicted")}  # not refuted: random() never ran


@pytest.mark.dynamic
@requires_torch
def test_dynamo_confirms_it_when_the_test_lets_the_call_run(tmp_path: Path) -> None:
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/layers.py": LAYERS.replace(
        "yield Stack().train()", "yield Stack(layer_dropout=0.5).train()")})
    statuses = break_statuses(cli_findings(tmp_path, "pkg", "--no-cache", "--backend", "eager"))
    assert statuses == {("BRK205", "layers.py", 16, "confirmed")}
