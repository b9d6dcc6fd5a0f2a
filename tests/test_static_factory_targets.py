"""`torch.compile(build_model(cfg))` compiles what the factory returns, not the factory: the
region is the `forward` of the class every `return` of the factory builds (`return Net(d)`, or
`model = Net(d); return model`), and nothing of the factory's own body (its `print`, its
`nn.Linear(...)` constructions) is reported. A factory of a closure (`def make(s): def step(x):
...; return step`) roots the closure; one that returns anything else roots nothing. Checked with `breakscan run` on a user's script and package against Dynamo."""

from __future__ import annotations

import pytest

from tests.conftest import break_statuses, requires_torch, run_findings, static_findings, write_files

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
    assert ("BRK101", "models.py", 13, "confirmed") in found, found
    assert ("BRK201", "models.py", 26, "confirmed") in found, found
    assert not {f for f in found if f[3] in ("refuted", "predicted", "observed")}, found
