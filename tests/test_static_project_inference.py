"""Parameters of public, unannotated helpers take the kinds passed at their traced call sites,
across the files of a project (relative imports, `from . import mod`, module attribute calls).

Each test writes a user's package into a fresh directory and runs the CLI as a user does. Measured
on torch 2.13 (backend "eager"): `normalize(x, eps)` called with a tensor breaks at `if scale > eps:`
(GB0170, data-dependent branching); `clamp_small(x.shape[0], 2)` does not (a shape is a guard).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import cli_findings, located, requires_torch, write_files

OPS = """
    import torch


    def normalize(x, eps):
        scale = x.abs().max()
        if scale > eps:
            return x / scale
        return x


    def clamp_small(value, floor):
        if value > floor:
            return value
        return floor


    def gate(v, t):
        if v > t:
            return v
        return t
"""
MODEL = """
    import torch
    from torch import nn

    from . import ops
    from .ops import clamp_small, normalize


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(4, 4)
            self.eps = 1e-5

        def forward(self, x):
            y = normalize(self.proj(x), self.eps)
            z = ops.normalize(x, 1e-3)
            limit = clamp_small(x.shape[0], 2)
            return (y + z) * limit


    def breakscan_examples():
        yield Net(), (torch.randn(2, 4),)
"""
PROJECT = {"pkg/__init__.py": "", "pkg/ops.py": OPS, "pkg/model.py": MODEL}
# `if scale > eps:` in normalize, reached from Net.forward in another file with a tensor.
PREDICTED = {("BRK101", "ops.py", 7)}


def test_public_helper_in_another_file_takes_the_tensor_its_callers_pass(tmp_path: Path) -> None:
    write_files(tmp_path, PROJECT)
    findings = cli_findings(tmp_path, "pkg", "--no-dynamic", "--no-cache")
    assert located(findings) == PREDICTED
    assert next(f["chain"] for f in findings) == ["Net.forward", "normalize"]


def test_a_helper_passed_a_tensor_at_one_call_and_a_number_at_another_stays_unknown(tmp_path: Path) -> None:
    # gate(v, t) breaks for the tensor call only; precision first: mixed kinds are not inferred.
    write_files(tmp_path, {**PROJECT, "pkg/other.py": """
        import torch
        from torch import nn

        from .ops import gate


        class Gated(nn.Module):
            def forward(self, x):
                a = gate(x.sum(), 0.5)
                b = gate(0.25, 0.5)
                return x * a * b
    """})
    assert located(cli_findings(tmp_path, "pkg", "--no-dynamic", "--no-cache")) == PREDICTED


def test_a_private_caller_of_the_helper_passes_what_it_was_passed(tmp_path: Path) -> None:
    # normalize's caller is itself a helper: its parameter takes the tensor forward passes.
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/ops.py": OPS, "pkg/model.py": """
        import torch
        from torch import nn

        from .ops import normalize


        def _scaled(h):
            return normalize(h, 1e-5)


        class Net(nn.Module):
            def forward(self, x):
                return _scaled(x * 2)
    """})
    assert located(cli_findings(tmp_path, "pkg", "--no-dynamic", "--no-cache")) == PREDICTED


def test_the_callers_file_is_part_of_the_helpers_cache_key(tmp_path: Path) -> None:
    """ops.py's findings depend on what model.py passes: editing model.py only re-checks ops.py."""
    write_files(tmp_path, PROJECT)
    cache = tmp_path / ".cache"
    assert located(cli_findings(tmp_path, "pkg", "--no-dynamic", cache=cache)) == PREDICTED
    model = tmp_path / "pkg" / "model.py"
    model.write_text(model.read_text().replace("normalize(self.proj(x), self.eps)", "normalize(1.0, self.eps)")
                     .replace("ops.normalize(x, 1e-3)", "ops.normalize(2.0, 1e-3)"))
    assert located(cli_findings(tmp_path, "pkg", "--no-dynamic", cache=cache)) == set()


@pytest.mark.dynamic
@requires_torch
def test_dynamo_confirms_the_helper_break_and_nothing_else(tmp_path: Path) -> None:
    write_files(tmp_path, PROJECT)
    findings = cli_findings(tmp_path, "pkg", "--no-cache", "--backend", "eager")
    breaks = [f for f in findings if f["kind"] in ("graph-break", "frame-fallback")]  # not the recompile on `eps` (BRK510)
    assert {(rule, name, line, f["status"]) for f in breaks
            for rule, name, line in located([f])} == {(*p, "confirmed") for p in PREDICTED}
