"""BRK412: after a graph break Dynamo cannot resume from (here in a loop), the rest of the frame
runs eagerly and each function it calls starts a frame of its own. One that puts no operation in
the graph is skipped ("No ops traced for the FX graph"), so its comprehensions start frames of
their own too, and Dynamo cannot step the dict iterator they receive (GB4347 on 2.13, GB9493 on
2.15). From the dev miss of torch_geometric's `HeteroConv`, whose `ModuleDict.items()` renames
keys in a comprehension. On a user package with relative imports: the `ModuleDict` subclass in
`registry.py` (a classmethod with `str` work; `labels()` over its inherited `self.keys()` and a
`tag: str` it stores), the model in `model.py`. A helper that multiplies
by a parameter traces an operation: its comprehension is inlined and nothing breaks there."""

from __future__ import annotations

import pytest

from tests.conftest import assert_package_confirms, requires_torch, static_located

PACKAGE = {
    "headkit/__init__.py": "",
    "headkit/registry.py": '''
        from torch import nn


        class Registry(nn.ModuleDict):
            SEP = "."

            def __init__(self, modules, tag: str = "head"):
                super().__init__(modules)
                self.tag = tag

            def labels(self):
                return [f"{self.tag}/{k}" for k in self.keys()]

            @classmethod
            def external(cls, key: str) -> str:
                return key.replace("#", cls.SEP)

            def items(self):
                return [(self.external(k), m) for k, m in super().items()]
        ''',
    "headkit/model.py": '''
        import torch
        from torch import nn

        from .registry import Registry


        class Heads(nn.Module):
            def __init__(self):
                super().__init__()
                self.heads = Registry({"a#b": nn.Linear(4, 4), "c": nn.Linear(4, 4)})
                self.prefix = "head_"
                self.scale = nn.Parameter(torch.ones(1))

            def names(self):
                return [self.prefix + k for k in self.heads.keys()]

            def scaled(self, factor: int):
                return [self.scale * factor for _ in self.heads.keys()]

            def forward(self, x):
                out = torch.zeros_like(x)
                for name, head in self.heads.items():
                    y = head(x)
                    if x.mean() > 0:
                        y = -y
                    out = out + y
                return out, self.names(), self.scaled(2), self.heads.labels()
        ''',
    "headkit/run.py": '''
        import torch

        from .model import Heads

        torch.compile(Heads(), backend="eager")(torch.randn(2, 4))
        ''',
}
EXPECTED = {("BRK101", "model.py", 25), ("BRK412", "model.py", 16), ("BRK412", "registry.py", 13),
            ("BRK412", "registry.py", 20)}


def test_static_pass_predicts_the_quiet_callees_comprehensions(tmp_path):
    assert static_located(tmp_path, PACKAGE) == EXPECTED


def test_an_unannotated_or_tensor_reading_helper_is_not_quiet(tmp_path):
    files = dict(PACKAGE)
    files["headkit/model.py"] = PACKAGE["headkit/model.py"].replace(
        "def names(self):", "def names(self, sep=None):").replace(
        "self.prefix + k for k", "self.prefix + k + str(self.scale) for k")
    found = static_located(tmp_path, files)
    assert ("BRK412", "model.py", 16) not in found
    assert ("BRK412", "registry.py", 20) in found


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_the_quiet_callee_breaks_and_nothing_else(tmp_path):
    assert_package_confirms(tmp_path, PACKAGE, "headkit.run", EXPECTED)
