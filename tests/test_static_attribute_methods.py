"""What a method of another project object returns: `self.sched.timesteps(n)` (the one class
`__init__` builds into `self.sched`) and `model.encode(x)` (a module-level instance) are read
like `self.m()`, with the kinds the call passes. Iterating the tensor `timesteps` returns gives
tensors, so `self.sched.step(eps, t, x)` gets a tensor `t` and `if t > 0` there breaks (a
diffusion sampler's loop). Checked through the CLI against Dynamo."""

from __future__ import annotations

import pytest

from tests.conftest import break_statuses, cli_findings, requires_torch, static_findings, write_files

SOURCE = '''
import torch


class Schedule:
    def __init__(self, steps=10):
        self.steps = steps
        self.alphas = torch.linspace(0.9, 0.1, steps)

    def timesteps(self, n):
        return torch.linspace(self.steps - 1, 0, n).long()

    def step(self, eps, t, x):
        scale = 2.0 if t > 0 else 1.0
        return (x - eps) * scale


class Encoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def encode(self, x):
        return self.lin(x).relu()

    def names(self):
        return ["a", "b"]


class Sampler:
    def __init__(self):
        self.sched = Schedule()
        self.net = torch.nn.Linear(4, 4)

    @torch.compile(backend="eager")
    def sample(self, x, n_steps):
        for t in self.sched.timesteps(n_steps):
            eps = self.net(x)
            x = self.sched.step(eps, t, x)
        return x


model = Encoder()


@torch.compile(backend="eager")
def embed(x):
    h = model.encode(x)
    if h.sum() > 0:
        h = h * 2
    if len(model.names()) > 1:
        h = h + 1
    return h


def breakscan_examples():
    yield Sampler().sample, (torch.randn(2, 4), 3)
    yield embed, (torch.randn(2, 4),)
'''


def test_returns_of_other_objects_methods(tmp_path):
    found = {(f.rule_id, f.line) for f in static_findings(tmp_path, {"sampler.py": SOURCE}, regions="explicit")}
    assert ("BRK101", 14) in found, found  # t > 0: t iterates the tensor timesteps() returns
    assert ("BRK101", 49) in found, found  # h.sum() > 0: h from model.encode(x)
    assert ("BRK101", 51) not in found, found  # len(model.names()): a list of str


@pytest.mark.dynamic
@requires_torch
def test_dynamo_confirms_breaks_after_other_objects_methods(tmp_path):
    write_files(tmp_path, {"sampler.py": SOURCE})
    found = break_statuses(cli_findings(tmp_path, "check", "sampler.py", "--show-refuted", cache=tmp_path / "cache"))
    assert ("BRK101", "sampler.py", 14, "confirmed") in found, found
    assert ("BRK101", "sampler.py", 49, "confirmed") in found, found
    assert not {f for f in found if f[3] == "refuted"}, found
