"""Calls through attributes bound to functions: `self.post = functools.partial(shrink, ...)` in
`__init__`, `self.limit = fn` in a setter called as `self.set_limit(clip)`, `self.norm = self._m`.
Dynamo 2.13 inlines the bound function where `self.post(y)` is called in compiled code, so a
break in its body is predicted and confirmed, through the CLI on a user package with a relative
import. A lambda bound the same way is not followed (no def to check); a function disabled with
`torch.compiler.disable` before it is bound is not traced."""

from __future__ import annotations

from tests.conftest import break_statuses, cli_findings, requires_torch, write_files

PACKAGE = {
    "sched/__init__.py": "",
    "sched/noise.py": '''
        import torch


        def shrink(x, scale):
            print("shrinking")
            return x * scale


        def clip(x):
            print("clipping")
            return x.clamp(max=1)


        def quiet(x):
            print("never traced")
            return x
        ''',
    "sched/model.py": '''
        import functools

        import torch
        from torch import nn

        from .noise import clip, quiet, shrink


        class Sampler(nn.Module):
            def __init__(self, scale=0.5):
                super().__init__()
                self.proj = nn.Linear(4, 4)
                self.post = functools.partial(shrink, scale=scale)
                self.limit = None
                self.set_limit(clip)
                self.norm = self._norm
                self.skip = torch.compiler.disable(quiet)

            def set_limit(self, fn):
                self.limit = fn

            def _norm(self, y):
                print("norm")
                return y / 2

            def forward(self, x):
                y = self.proj(x)
                y = self.post(y)
                y = self.norm(self.skip(y))
                return self.limit(y)


        def breakscan_examples():
            yield Sampler(), (torch.randn(2, 4),)
        ''',
}
EXPECTED = {("BRK201", "noise.py", 6), ("BRK201", "noise.py", 11), ("BRK201", "model.py", 24),
            ("BRK208", "model.py", 30)}  # the disabled call breaks around itself


def test_calls_through_bound_functions_are_followed(tmp_path):
    write_files(tmp_path, PACKAGE)
    found = break_statuses(cli_findings(tmp_path, "check", "sched", "--no-dynamic", "--no-cache"))
    assert {f[:3] for f in found} == EXPECTED  # not `quiet` (disabled before it is bound)


@requires_torch
def test_dynamo_inlines_the_bound_functions(tmp_path):
    write_files(tmp_path, PACKAGE)
    found = break_statuses(cli_findings(tmp_path, "check", "sched", "--show-refuted", cache=tmp_path / "cache"))
    assert found == {(*f, "confirmed") for f in EXPECTED}
