"""A graph break inside a generator expression (`sum(t.sum().item() for t in ts)`, or the truth
test `any(...)` / `all(...)` runs on each element) is not resumed: Dynamo runs the rest of the
frame eagerly (measured on 2.13 and 2.15). So a later `print` does not break (the prediction is
dropped), and a later generator expression starts a generator frame of its own, which Dynamo
refuses (GB0003, BRK407). From a dev user program (`p64_any_python.py`). A break in a list
comprehension is resumed after it, also one inside a generator expression nested in it: nothing
changes there. As after a loop's break, the whole frame runs eagerly again, so a generator
expression before the break is refused too. A package with relative imports, the
helpers unannotated."""

from __future__ import annotations

import pytest

from tests.conftest import assert_package_confirms, requires_torch, static_located

PACKAGE = {
    "gxkit/__init__.py": "",
    "gxkit/checks.py": '''
        import torch


        def finite_total(tensors):
            if any(torch.isnan(t).any() for t in tensors):
                return None
            return sum(t.sum() for t in tensors)


        def item_total(ts):
            total = sum(t.sum().item() for t in ts)
            y = ts[0] * 2
            print("after")
            return y + total


        def listed(ts):
            vals = [t.tolist() for t in ts]
            y = ts[0] * 2
            print("after")
            return y, vals


        def counted(ts):
            n = sum(t.numel() for t in ts)
            total = sum(t.sum().item() for t in ts)
            return total + n


        def sliced(x, idx):
            s = [tuple(slice(c[0], c[1]) for c in i) for i in idx]
            y = x * 2
            print("after")
            return y, s
        ''',
    "gxkit/run.py": '''
        import torch

        from .checks import counted, finite_total, item_total, listed, sliced

        ts = [torch.rand(3), torch.rand(2)]
        torch.compile(finite_total, backend="eager")(ts)
        torch.compile(item_total, backend="eager")(ts)
        torch.compile(listed, backend="eager")(ts)
        torch.compile(counted, backend="eager")(ts)
        torch.compile(sliced, backend="eager")(torch.rand(4), torch.tensor([[[0, 2], [1, 3]]]))
        ''',
}
EXPECTED = {("BRK101", "checks.py", 6), ("BRK407", "checks.py", 8), ("BRK102", "checks.py", 12),
            ("BRK103", "checks.py", 19), ("BRK201", "checks.py", 21),
            # the whole frame runs eagerly again: a generator expression before the break too
            ("BRK407", "checks.py", 26), ("BRK102", "checks.py", 27),
            # inside a list comprehension: that frame breaks and Dynamo resumes after it
            ("BRK258", "checks.py", 32), ("BRK201", "checks.py", 34)}


def test_the_rest_of_the_frame_after_a_generator_break_runs_eagerly(tmp_path):
    found = static_located(tmp_path, PACKAGE)
    assert found == EXPECTED  # the print at line 14 is dropped; the one after the list comprehension is not


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_the_generator_skips_and_nothing_else(tmp_path):
    assert_package_confirms(tmp_path, PACKAGE, "gxkit.run", EXPECTED)
