"""BRK273: `torch._assert(cond, msg)` with a tensor condition reads it as a Python bool (GB0033)
on torch 2.13; a Python bool condition (a size test) is traced, and so is `torch._assert_async`.
Torch 2.15 traces the tensor form too, and the CLI there does not flag it (the rule claims 2.13
only). From the dev user program `s8_t03_torch_assert.py`; a package with relative imports, the
helper unannotated."""

from __future__ import annotations

import pytest

from tests.conftest import assert_package_confirms, requires_torch, static_located

PACKAGE = {
    "guards/__init__.py": "",
    "guards/checks.py": '''
        import torch


        def nonneg(x):
            torch._assert((x >= 0).all(), "expected non-negative input")
            return x / x.sum()


        def nonempty(x):
            torch._assert(x.shape[0] > 0, "empty input")
            torch._assert_async((x >= 0).all())
            return x * 2
        ''',
    "guards/run.py": '''
        import torch

        from .checks import nonempty, nonneg

        x = torch.rand(5)
        torch.compile(nonneg, backend="eager")(x)
        torch.compile(nonempty, backend="eager")(x)
        ''',
}
EXPECTED = {("BRK273", "checks.py", 6)}


def test_only_a_tensor_condition_is_flagged(tmp_path):
    assert {f for f in static_located(tmp_path, PACKAGE) if f[0] == "BRK273"} == EXPECTED


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_the_tensor_assert_on_2_13_and_nothing_else(tmp_path):
    import torch

    on_213 = tuple(int(p) for p in torch.__version__.split(".")[:2]) < (2, 14)
    assert_package_confirms(tmp_path, PACKAGE, "guards.run", EXPECTED if on_213 else set())
