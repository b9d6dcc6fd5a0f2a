"""BRK272: building a project `torch.Tensor` subclass in a region whose `__init__` takes a
positional argument without a default (its own or a project base's) breaks at the call (GB7312
on 2.13, GB0088 on 2.15: Dynamo traces that `__init__` without the call's arguments). From the
dev misses of MONAI's transforms, whose `convert_to_tensor` builds `MetaTensor(tensor)`. On a user
package with relative imports: the subclasses live in `types.py`, a helper in `convert.py` builds
them, and the run script compiles functions that reach it. A subclass with only `__new__`, with
`__init__(self, *args, **kwargs)` or with every parameter defaulted is traced."""

from __future__ import annotations

import pytest

from tests.conftest import assert_package_confirms, requires_torch, static_located

PACKAGE = {
    "tagkit/__init__.py": "",
    "tagkit/types.py": '''
        import torch


        class MetaBase(torch.Tensor):
            def __init__(self, x, meta=None):
                super().__init__()
                self.meta = meta or {}


        class Scan(MetaBase):
            pass


        class Loose(torch.Tensor):
            @staticmethod
            def __new__(cls, x, *args, **kwargs):
                return torch.as_tensor(x).as_subclass(cls)

            def __init__(self, *args, **kwargs):
                super().__init__()


        class Defaulted(torch.Tensor):
            def __init__(self, x=None, meta=None):
                super().__init__()
        ''',
    "tagkit/convert.py": '''
        import torch

        from . import types
        from .types import Defaulted, Loose


        def to_scan(data, track=True):
            if track:
                return types.Scan(data)
            return data


        def to_loose(data):
            return Loose(data) + Defaulted(data)
        ''',
    "tagkit/run.py": '''
        import torch

        from .convert import to_loose, to_scan


        def scale(x):
            return to_scan(x * 2) + 1


        def plain(x):
            return to_loose(x) * 3


        x = torch.randn(4)
        torch.compile(scale, backend="eager")(x)
        torch.compile(plain, backend="eager")(x)
        ''',
}
EXPECTED = {("BRK272", "convert.py", 10)}


def test_static_pass_predicts_only_the_subclass_with_init_arguments(tmp_path):
    assert {f for f in static_located(tmp_path, PACKAGE) if f[0] == "BRK272"} == EXPECTED


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_the_subclass_break_and_nothing_else(tmp_path):
    assert_package_confirms(tmp_path, PACKAGE, "tagkit.run", EXPECTED)
