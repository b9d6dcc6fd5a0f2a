"""BRK305 (an `nn.Buffer` attribute re-bound in forward) only where the value may still be the
buffer object: Module.__setattr__ then re-registers it and Dynamo breaks (GB4841). A running
statistic updated with a new tensor (`self.low = torch.min(self.low, x.min())`) is stored
without a break.

Measured on torch 2.13 (backend "eager"): `.float()` of a float buffer, `.contiguous()`,
`.add_()`, `+=` and `nn.Buffer(...)` break at the assignment; `self.b * m + x`, `torch.min(...)`,
`.detach()` and `.to(torch.float64)` of a float32 buffer do not.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import break_statuses, cli_findings, located, requires_torch, write_files

STATS = """
    import torch
    from torch import nn


    class RunningRange(nn.Module):
        def __init__(self):
            super().__init__()
            self.low = nn.Buffer(torch.zeros(1))
            self.high = nn.Buffer(torch.zeros(1))
            self.momentum = 0.9

        def forward(self, x):
            if self.training:
                self.low = torch.min(self.low, x.detach().min())
                self.high = self.high * self.momentum + x.detach().max() * (1 - self.momentum)
            return (x - self.low) / (self.high - self.low + 1e-5)


    class Converted(nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = nn.Buffer(torch.ones(4))

        def forward(self, x):
            self.scale = self.scale.float()
            return x * self.scale


    class Shifted(nn.Module):
        def __init__(self):
            super().__init__()
            self.shift = nn.Buffer(torch.zeros(4))

        def forward(self, x):
            self.shift += 1
            return x + self.shift


    def breakscan_examples():
        yield RunningRange().train(), (torch.randn(2, 4),)
        yield Converted(), (torch.randn(2, 4),)
        yield Shifted(), (torch.randn(2, 4),)
"""
PREDICTED = {("BRK305", "stats.py", 26), ("BRK305", "stats.py", 36)}


def test_only_values_that_may_be_the_buffer_object_are_flagged(tmp_path: Path) -> None:
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/stats.py": STATS})
    # BRK501: `if self.training:` recompiles when the mode changes (not a graph break).
    assert located(cli_findings(tmp_path, "pkg", "--no-dynamic", "--no-cache")) == PREDICTED | {
        ("BRK501", "stats.py", 14)}


@pytest.mark.dynamic
@requires_torch
def test_dynamo_breaks_on_the_same_object_and_stores_new_tensors(tmp_path: Path) -> None:
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/stats.py": STATS})
    findings = cli_findings(tmp_path, "pkg", "--no-cache", "--backend", "eager")
    assert break_statuses(findings) == {(*p, "confirmed") for p in PREDICTED}
