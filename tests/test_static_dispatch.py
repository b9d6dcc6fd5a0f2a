"""Calls on `self` dispatch on the instance's class; values indexed by a string are mappings;
elements of a tuple target are stores.

Each test writes a user's package into a fresh directory and runs the CLI as a user does. Measured
on torch 2.13 (backend "eager"), and checked again by the dynamic test below:
- an nn.Module subclass that inherits `forward` runs its own override of a method `forward` calls
  on `self` (the template-method pattern of augmentation and loss libraries): Dynamo traces the
  override, so its `.item()` breaks the graph (BRK102);
- `batch["count"]` of a `forward` argument that is a dict is a Python value: a size built from it
  does not break (no BRK108), though an unannotated `forward` argument is guessed to be a tensor;
- `out[m], log[m] = a, b` stores through boolean masks (no break), while reading `x[m]` breaks
  (`Dynamic shape operator`, BRK106).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import break_statuses, cli_findings, located, requires_torch, write_files

BASE = """
    import torch
    from torch import nn


    class Augment(nn.Module):
        def forward(self, x):
            params = self.sample(x)
            return self.apply_transform(x, params)

        def sample(self, x):
            return x.mean()

        def apply_transform(self, x, params):
            return x
"""
AUGMENTS = """
    import torch

    from .base import Augment


    class Brightness(Augment):
        def apply_transform(self, x, params):
            shift = params.item()
            return x + shift


    class Counted(Augment):
        def forward(self, batch):
            n = batch["count"]
            return torch.zeros(n + 1) + batch["x"].sum()


    class Masked(Augment):
        def apply_transform(self, x, params):
            out = torch.zeros_like(x)
            log = torch.zeros_like(x)
            m = x > params
            out[m], log[m] = 1.0, 2.0
            return out + log + x[m].sum()


    def breakscan_examples():
        yield Brightness(), (torch.randn(4),)
        yield Counted(), ({"count": 3, "x": torch.randn(4)},)
        yield Masked(), (torch.randn(4),)
"""
PROJECT = {"aug/__init__.py": "", "aug/base.py": BASE, "aug/augments.py": AUGMENTS}
PREDICTED = {
    ("BRK102", "augments.py", 9),  # params.item() in the override Augment.forward runs on a Brightness
    ("BRK106", "augments.py", 25),  # x[m] read; `out[m], log[m] = ...` on line 24 is a store
}


def test_an_inherited_forward_runs_the_subclass_override(tmp_path: Path) -> None:
    write_files(tmp_path, PROJECT)
    findings = cli_findings(tmp_path, "aug", "--no-dynamic", "--no-cache")
    assert located(findings) == PREDICTED
    item = next(f for f in findings if f["rule_id"] == "BRK102")
    assert item["chain"] == ["Augment.forward", "Brightness.apply_transform"]


def test_an_override_no_subclass_reaches_is_not_traced(tmp_path: Path) -> None:
    # Explicit regions: only the compiled instance's class counts, and it is the base.
    write_files(tmp_path, {**PROJECT, "aug/run.py": """
        import torch

        from .base import Augment

        step = torch.compile(Augment())
    """})
    assert located(cli_findings(tmp_path, "aug", "--no-dynamic", "--no-cache", "--regions", "explicit")) == set()


@pytest.mark.dynamic
@requires_torch
def test_dynamo_confirms_dispatch_string_keys_and_mask_stores(tmp_path: Path) -> None:
    write_files(tmp_path, PROJECT)
    findings = cli_findings(tmp_path, "aug", "--no-cache", "--backend", "eager")
    assert break_statuses(findings) == {(*p, "confirmed") for p in PREDICTED}
