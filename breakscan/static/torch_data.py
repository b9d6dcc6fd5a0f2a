"""Torch-derived data the static pass reads (rules/data/, written by scripts/refresh_torch_data.py
from the installed torch): without importing torch or libcst."""

from __future__ import annotations

import json
from functools import cache


@cache
def python_value_returns() -> frozenset[str]:
    """`torch.X` functions annotated to return a Python value (`torch.seed() -> int`), from
    `rules/data/torch-ops.json` (scripts/refresh_torch_data.py reads them from the installed torch
    with inspect); empty if the file is missing or unreadable."""
    from breakscan.catalog import rules_dir  # `rules/` in a checkout, `breakscan/_rules` in a wheel

    path = rules_dir() / "data" / "torch-ops.json"
    try:
        return frozenset(json.loads(path.read_text(encoding="utf-8")).get("python_value_returns", ()))
    except (OSError, ValueError):
        return frozenset()
