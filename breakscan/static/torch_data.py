"""Torch-derived data the static pass reads (rules/data/, written by scripts/refresh_torch_data.py
from the installed torch): without importing torch or libcst."""

from __future__ import annotations

import json
from functools import cache


@cache
def _torch_ops() -> dict:
    """`rules/data/torch-ops.json`; {} if it is missing or unreadable."""
    from breakscan.catalog import rules_dir  # `rules/` in a checkout, `breakscan/_rules` in a wheel

    path = rules_dir() / "data" / "torch-ops.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


@cache
def python_value_returns() -> frozenset[str]:
    """`torch.X` functions annotated to return a Python value (`torch.seed() -> int`), from
    `rules/data/torch-ops.json` (scripts/refresh_torch_data.py reads them from the installed torch
    with inspect); empty if the file is missing or unreadable."""
    return frozenset(_torch_ops().get("python_value_returns", ()))


@cache
def tensor_method_names() -> frozenset[str]:
    """The attribute names `torch.Tensor` or `numpy.ndarray` has (methods, properties; no dunders:
    Dynamo traces NumPy arrays as tensors, which the inference's tensor kind includes), from
    `rules/data/torch-ops.json` (scripts/refresh_torch_data.py lists `dir()` of both for the
    installed torch and NumPy); empty if the file is missing or unreadable (then every name counts)."""
    data = _torch_ops()
    return frozenset(data.get("tensor_method_names", ())) | frozenset(data.get("ndarray_method_names", ()))


@cache
def optimizer_disabled_methods() -> frozenset[str]:
    """Methods of `torch.optim.Optimizer` that torch wraps in `torch._disable_dynamo` (`zero_grad`,
    `state_dict`...), from `rules/data/torch-ops.json`'s tag `optimizer_disabled` (found by
    scripts/refresh_torch_data.py from the wrapper's code object); empty if unreadable."""
    return frozenset(_torch_ops().get("tags", {}).get("optimizer_disabled", {}).get("methods", ()))


@cache
def optimizer_step_breaks() -> frozenset[str]:
    """`torch.optim` classes whose `step` calls `torch._dynamo.graph_break()` on purpose (wrapped by
    `_use_grad_for_differentiable`: SGD, Adam, AdamW...), from `rules/data/torch-ops.json`'s tag
    `optimizer_disabled` (`step_breaks`); empty if unreadable."""
    return frozenset(_torch_ops().get("tags", {}).get("optimizer_disabled", {}).get("step_breaks", ()))
