"""BRK247 on an attribute that holds a `str` enum member: `__init__` stores a parameter whose
default is a member (`self.mode = mode`, `mode=Mode.FAST`), and the compiled `forward` passes
`self.mode` to a lookup helper that calls `str` methods on it (GB0156 on 2.13 and 2.15, Dynamo
does not trace `strip` on a user-defined `str` subclass). From a user check: a segmentation
package with relative imports, the enum and helpers in `options.py`. When the project builds the
class with a string for that parameter (`Named(mode="full")`), the attribute holds a string, and
its helper's `lower()` is traced: not flagged."""

from __future__ import annotations

import pytest

from tests.conftest import assert_package_confirms, requires_torch, static_located

PACKAGE = {
    "segkit/__init__.py": "",
    "segkit/options.py": '''
        import enum


        class Mode(str, enum.Enum):
            FAST = "fast"
            FULL = "full"


        def lookup(opt, supported):
            if isinstance(opt, str):
                opt = opt.strip()
            for member in supported:
                if opt == member.value or opt is member:
                    return member
            raise ValueError(f"unknown option {opt!r}")


        def norm(opt):
            return opt.lower()
        ''',
    "segkit/model.py": '''
        import torch
        from torch import nn

        from .options import Mode, lookup, norm


        class Segmenter(nn.Module):
            def __init__(self, mode=Mode.FAST):
                super().__init__()
                self.mode = mode
                self.proj = nn.Linear(4, 4)

            def forward(self, x):
                mode = lookup(self.mode, Mode)
                y = self.proj(x)
                return y * 2 if mode == Mode.FULL else y


        class Named(nn.Module):
            def __init__(self, mode=Mode.FAST):
                super().__init__()
                self.mode = mode

            def forward(self, x):
                return x * len(norm(self.mode))
        ''',
    "segkit/run.py": '''
        import torch

        from .model import Named, Segmenter

        x = torch.randn(2, 4)
        torch.compile(Segmenter(), backend="eager")(x)
        torch.compile(Named(mode="full"), backend="eager")(x)
        ''',
}
EXPECTED = {("BRK247", "options.py", 12)}


def test_a_member_stored_on_self_reaches_the_helper(tmp_path):
    assert {f for f in static_located(tmp_path, PACKAGE) if f[0] == "BRK247"} == EXPECTED


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_the_member_attribute_break_and_nothing_else(tmp_path):
    assert_package_confirms(tmp_path, PACKAGE, "segkit.run", EXPECTED)


def test_without_the_string_both_helpers_are_flagged(tmp_path):
    files = dict(PACKAGE)
    files["segkit/run.py"] = PACKAGE["segkit/run.py"].replace('Named(mode="full")', "Named()")
    found = {f for f in static_located(tmp_path, files) if f[0] == "BRK247"}
    assert found == EXPECTED | {("BRK247", "options.py", 20)}
