"""torch functions annotated to return a Python value (`torch.seed() -> int`, listed in
rules/data/torch-ops.json by scripts/refresh_torch_data.py from the installed torch) give Python
values: `int(torch.seed() % sys.maxsize)` is not a tensor's scalar conversion (BRK104).

Measured on torch 2.13 (backend "eager"): that line compiles without a break, while
`int(x.sum())` breaks (GB0033, data-dependent operator).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import ROOT, break_statuses, cli_findings, located, requires_torch, write_files

SEEDED = """
    import sys

    import torch
    from torch import nn


    class Seeded(nn.Module):
        def forward(self, x):
            seed = int(torch.seed() % sys.maxsize)
            total = int(x.sum())
            return x * (seed % 7) + total


    def breakscan_examples():
        yield Seeded(), (torch.ones(3),)
"""


def test_the_data_lists_torch_seed_as_returning_a_python_value() -> None:
    data = json.loads((ROOT / "rules" / "data" / "torch-ops.json").read_text(encoding="utf-8"))
    assert {"torch.seed", "torch.initial_seed", "torch.typename"} <= set(data["python_value_returns"])
    assert "torch.get_rng_state" not in data["python_value_returns"]  # returns a tensor


def test_int_of_torch_seed_is_not_a_tensor_conversion(tmp_path: Path) -> None:
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/seeded.py": SEEDED})
    assert located(cli_findings(tmp_path, "pkg", "--no-dynamic", "--no-cache")) == {("BRK104", "seeded.py", 11)}


@pytest.mark.dynamic
@requires_torch
def test_dynamo_traces_the_seed_and_breaks_on_the_tensor_conversion(tmp_path: Path) -> None:
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/seeded.py": SEEDED})
    assert break_statuses(cli_findings(tmp_path, "pkg", "--no-cache", "--backend", "eager")) == {
        ("BRK104", "seeded.py", 11, "confirmed")}
