"""`torch.compile(build_model(cfg))` compiles what the factory returns, not the factory: the
region is the `forward` of the class every `return` of the factory builds (`return Net(d)`, or
`model = Net(d); return model`), and nothing of the factory's own body (its `print`, its
`nn.Linear(...)` constructions) is reported. A factory of a closure (`def make(s): def step(x):
...; return step`) roots the closure; one that returns anything else roots nothing. Checked with `breakscan run` on a user's script and package against Dynamo."""

from __future__ import annotations

import pytest

from tests.conftest import (
    assert_dynamo_confirms, break_statuses, requires_torch,
    run_findings, static_findings, write_files,
)

PACKAGE = {
    "pkg/__init__.py": "",
    "pkg/models.py": '''
        import torch
        from torch import nn


        class Net(nn.Module):
            def __init__(self, dim):
                super().__init__()
                self.lin = nn.Linear(dim, dim)

            def forward(self, x):
                h = self.lin(x)
                if h.mean() > 0:
                    h = h * 2
                return h


        def build_model(cfg):
            print("building", cfg)
            model = Net(cfg["dim"])
            return model


        def make_step(scale):
            def step(x):
                print("step")
                return x * scale
            return step
        ''',
    "train.py": '''
        import torch

        from pkg.models import build_model, make_step


        def main():
            model = torch.compile(build_model({"dim": 4}))
            model(torch.randn(2, 4))
            step = torch.compile(make_step(2.0))
            step(torch.randn(2))


        if __name__ == "__main__":
            main()
        ''',
}


def test_a_factory_call_compiles_what_it_returns(tmp_path):
    found = {(f.rule_id, f.path.rsplit("/", 1)[-1], f.line)
             for f in static_findings(tmp_path, PACKAGE, regions="explicit")}
    assert ("BRK101", "models.py", 13) in found, found  # Net.forward, what build_model returns
    assert ("BRK201", "models.py", 26) in found, found  # print in step, the closure make_step returns
    assert not {f for f in found if 17 <= f[2] <= 24 or f[2] > 26}, found  # nothing else of the factories


@pytest.mark.dynamic
@requires_torch
def test_dynamo_agrees_on_factory_targets(tmp_path):
    write_files(tmp_path, PACKAGE)
    found = break_statuses(run_findings(tmp_path, "train.py"))
    assert_dynamo_confirms(found, [("BRK101", "models.py", 13), ("BRK201", "models.py", 26)])


# An instance a factory builds: `model = build()` at module level (its methods called from a
# compiled function) and `net = build(); net = torch.compile(net)` in a function.
BUILT = {
    "shop/__init__.py": "",
    "shop/nets.py": '''
        import math

        import torch
        from torch import nn

        from .masks import lengths_to_mask


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(4, 4)

            def forward(self, x):
                h = self.lin(x)
                return h * math.sqrt(h.var())

            def pooled(self, x, lengths):
                mask = lengths_to_mask(lengths)
                return (self.lin(x) * mask[..., None]).sum(1)


        def build():
            return Net()
        ''',
    "shop/masks.py": '''
        import torch


        def lengths_to_mask(lengths):
            width = int(lengths.max())
            return torch.arange(width)[None, :] < lengths[:, None]
        ''',
    "run.py": '''
        import torch

        from shop.nets import build

        model = build()


        @torch.compile
        def pool(x, lengths):
            return model.pooled(x, lengths)


        def main():
            pool(torch.randn(2, 3, 4), torch.tensor([3, 2]))
            net = build()
            net = torch.compile(net)
            net(torch.randn(2, 4))


        if __name__ == "__main__":
            main()
        ''',
}


def test_an_instance_a_factory_builds_is_resolved(tmp_path):
    found = {(f.rule_id, f.path.rsplit("/", 1)[-1], f.line)
             for f in static_findings(tmp_path, BUILT, regions="explicit")}
    assert ("BRK104", "masks.py", 6) in found, found  # model.pooled -> lengths_to_mask, from `model = build()`
    assert ("BRK104", "nets.py", 17) in found, found  # Net.forward, compiled as `net = build()`


@pytest.mark.dynamic
@requires_torch
def test_dynamo_agrees_on_instances_a_factory_builds(tmp_path):
    write_files(tmp_path, BUILT)
    found = break_statuses(run_findings(tmp_path, "run.py"))
    assert_dynamo_confirms(found, [("BRK104", "masks.py", 6), ("BRK104", "nets.py", 17)])
