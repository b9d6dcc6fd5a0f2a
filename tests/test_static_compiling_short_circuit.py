"""The right side of `is_compiling() or <check>` and of `not is_compiling() and <check>` never runs
under Dynamo (the left side's value there is known), so the check it holds is not flagged; a
check behind `is_compiling() and ...` runs and breaks (BRK101, confirmed by Dynamo 2.13 through
the CLI). The user's `is_compiling` is a helper in a sibling module that wraps
`torch.compiler.is_compiling()` (kornia's `kornia.core.utils.is_compiling` is one)."""

from __future__ import annotations

from tests.conftest import break_statuses, cli_findings, requires_torch, write_files

PACKAGE = {
    "guards/__init__.py": "",
    "guards/compat.py": '''
        import torch


        def is_compiling() -> bool:
            return torch.compiler.is_compiling()
        ''',
    "guards/checks.py": '''
        import torch
        from torch import Tensor

        from .compat import is_compiling


        def check_positive(t: Tensor) -> None:
            if is_compiling() or bool((t > 0).all()):
                return
            raise ValueError("expected positive values")


        def check_finite(t: Tensor) -> None:
            if not is_compiling() and not torch.isfinite(t).all():
                raise ValueError("expected finite values")


        def check_traced(t: Tensor) -> None:
            if is_compiling() and (t < 0).all():
                raise ValueError("expected some non-negative values")


        def run(x):
            check_positive(x)
            check_finite(x)
            check_traced(x)
            return x * 2


        def breakscan_examples():
            yield run, (torch.rand(4),)
        ''',
}


@requires_torch
def test_right_side_of_a_known_compiling_test_is_not_flagged(tmp_path):
    write_files(tmp_path, PACKAGE)
    found = break_statuses(cli_findings(tmp_path, "check", "guards", "--show-refuted", cache=tmp_path / "cache"))
    assert ("BRK101", "checks.py", 20, "confirmed") in found  # behind `is_compiling() and`: it runs
    assert not {f for f in found if f[2] in (10, 15)}  # `is_compiling() or ...`, `not is_compiling() and ...`
    assert not {f for f in found if f[3] in ("refuted", "observed")}
