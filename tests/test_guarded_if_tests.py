"""A tensor test behind another operand of an `if`'s `and`/`or` carries that guard
(`extra.guard_lines`): Dynamo tracing the line does not show that the operand ran, so the merge
does not refute it; when it runs and breaks, Dynamo confirms it.

Measured on torch 2.13 (backend "eager"): MONAI's separable filter tests
`if kernel.numel() == 1 and kernel[0] == 1:`; with a 3-tap kernel the shape test is False at
trace time and the tensor comparison never runs (no break), with a 1-tap kernel it breaks (GB0170).
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import cli_findings, requires_torch, write_files

FILTERS = '''
    import torch


    def separable(x, kernels):
        kernel = kernels[0].reshape(1, 1, -1)
        if kernel.numel() == 1 and kernel[0] == 1:
            return x
        return x * kernel.sum()
'''


def _examples(taps: int) -> str:
    return f'''
    import torch

    from .filters import separable


    def breakscan_examples():
        yield separable, (torch.randn(4), [torch.ones({taps})])
'''


@requires_torch
def test_a_tensor_test_behind_a_false_shape_test_is_not_refuted(tmp_path: Path) -> None:
    write_files(tmp_path, {"filt/__init__.py": "", "filt/filters.py": FILTERS, "filt/run.py": _examples(3)})
    found = [f for f in cli_findings(tmp_path, "filt", "--show-refuted", cache=tmp_path / ".c")
             if f["rule_id"] == "BRK101"]
    assert [(f["line"], f["status"], f["extra"].get("guard_lines")) for f in found] == [(7, "predicted", [7])]


@requires_torch
def test_a_tensor_test_behind_a_true_shape_test_is_confirmed(tmp_path: Path) -> None:
    write_files(tmp_path, {"filt/__init__.py": "", "filt/filters.py": FILTERS, "filt/run.py": _examples(1)})
    found = [f for f in cli_findings(tmp_path, "filt", "--show-refuted", cache=tmp_path / ".c")
             if f["rule_id"] == "BRK101"]
    assert [(f["line"], f["status"]) for f in found] == [(7, "confirmed")]
