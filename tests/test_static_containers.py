"""Tensors inside containers: dicts annotated `Dict[str, Tensor]` or built from tensors, lists built
by comprehensions over tensors, `tuple(...)` of a generator of tensors; iterating a dict gives its
keys, not tensors.

Measured on torch 2.13 (backend "eager") and checked by the dynamic test below: each predicted line
breaks (`.tolist()` GB0033, data-dependent branching GB0170); `len(name)` of a dict key does not.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import break_statuses, cli_findings, located, requires_torch, write_files

MODEL = """
    from typing import Dict, Tuple

    import torch
    from torch import nn

    KEYS = ("a", "b")


    def dispatch(x: torch.Tensor, params: Dict[str, torch.Tensor], neutral: Tuple[float, float]) -> torch.Tensor:
        factors = tuple(params[key] for key in KEYS)
        order = params["order"].tolist()
        for idx in order:
            if (factors[idx] != neutral[idx]).any():
                x = x * factors[idx]
        for name in params:
            x = x + len(name)
        return x


    class M(nn.Module):
        def forward(self, x):
            parts = [h * 2 for h in x.split(2)]
            if parts[0].sum() > 0:
                x = x + 1
            stats = {"mean": x.mean(), "max": x.max()}
            if stats["max"] > 1:
                x = x * 2
            return dispatch(x, {"a": x, "b": x, "order": torch.tensor([0, 1])}, (1.0, 1.0))


    def breakscan_examples():
        yield M(), (torch.randn(4),)
"""
PREDICTED = {("BRK103", "model.py", 12), ("BRK101", "model.py", 14), ("BRK101", "model.py", 24),
             ("BRK101", "model.py", 27)}


def test_tensors_in_dicts_lists_and_generators(tmp_path: Path) -> None:
    write_files(tmp_path, {"model.py": MODEL})
    assert located(cli_findings(tmp_path, "model.py", "--no-dynamic", "--no-cache")) == PREDICTED


@pytest.mark.dynamic
@requires_torch
def test_dynamo_confirms_the_container_predictions(tmp_path: Path) -> None:
    write_files(tmp_path, {"model.py": MODEL})
    findings = cli_findings(tmp_path, "model.py", "--no-cache", "--backend", "eager")
    assert break_statuses(findings) == {(*p, "confirmed") for p in PREDICTED}
