"""BRK412 on helpers whose unannotated parameters are read only as text: an f-string field
(`f"{mark}{self.prefix}{k}"`), a term of a `+` chain holding a string literal (`"(" + left +
...`), or a parameter with a string default (`right=")"`). A tensor there would not put an
operation in the graph either, so the helper called after the loop's break traces none, Dynamo
skips its frame and its comprehension over `self.keys()` breaks (GB4347 on 2.13, GB9493 on 2.15).
`__init__` stores `prefix="b"` unannotated: a string default makes the attribute a Python value,
as a `str` annotation does. From user checks: a `ModuleDict` subclass in a package with relative
imports. A parameter read
otherwise (`self.prefix * n`) keeps the helper out, as does an unannotated term of a chain with
no literal (`self.prefix + k + extra`, a documented miss)."""

from __future__ import annotations

import pytest

from tests.conftest import assert_package_confirms, requires_torch, static_located

PACKAGE = {
    "tagkit/__init__.py": "",
    "tagkit/blocks.py": '''
        import torch
        from torch import nn


        class Branches(nn.ModuleDict):
            def __init__(self, mods, prefix="b"):
                super().__init__(mods)
                self.prefix = prefix

            def marked(self, mark):
                return [f"{mark}{self.prefix}{k}" for k in self.keys()]

            def wrapped(self, left, right=")"):
                return ["(" + left + self.prefix + k + right for k in self.keys()]


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.branches = Branches({"a": nn.Linear(4, 4), "b": nn.Linear(4, 4)})

            def forward(self, x):
                total = 0
                for name, m in self.branches.items():
                    total = total + m(x)
                    if x.sum() > 0:
                        total = total * 2
                return total, self.branches.marked("*"), self.branches.wrapped("<")
        ''',
    "tagkit/train.py": '''
        import torch

        from .blocks import Net

        torch.compile(Net(), backend="eager")(torch.randn(2, 4))
        ''',
}
EXPECTED = {("BRK412", "blocks.py", 12), ("BRK412", "blocks.py", 15), ("BRK101", "blocks.py", 27)}


def test_helpers_reading_parameters_as_text_are_quiet(tmp_path):
    assert static_located(tmp_path, PACKAGE) == EXPECTED


def test_a_parameter_read_otherwise_keeps_the_helper_out(tmp_path):
    files = dict(PACKAGE)
    files["tagkit/blocks.py"] = PACKAGE["tagkit/blocks.py"].replace(
        'f"{mark}{self.prefix}{k}"', 'f"{mark}{self.prefix}{k}" * len(mark)').replace(
        '"(" + left + self.prefix + k + right', 'left + self.prefix + k + right')
    found = static_located(tmp_path, files)
    assert ("BRK412", "blocks.py", 12) not in found
    assert ("BRK412", "blocks.py", 15) not in found


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_the_text_helpers_breaks_and_nothing_else(tmp_path):
    assert_package_confirms(tmp_path, PACKAGE, "tagkit.train", EXPECTED)
