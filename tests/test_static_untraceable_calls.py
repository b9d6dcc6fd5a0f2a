"""Calls Dynamo cannot trace, in a user's script driven through `breakscan run` (static pass and
Dynamo on the same lines):
- builtins with no Dynamo handler: `globals()`, `dir()`, `exec()` (BRK242, GB0059);
- an `io.BytesIO` / `io.StringIO` buffer made in the region (BRK214, GB0156);
- tensor methods that take a Python callable, `apply_` / `map_` (BRK225, GB0055);
- `Tensor.is_nonzero()`, which reads the value like `.item()` (BRK102, GB0033);
- a `torch.Generator` made in the region (GB0363) and then passed as `generator=` (GB0055), BRK236.
Their neighbours are traced and not flagged: `eval` of a constant string, `len(...)`, a method
called `apply_` on a non-tensor.
"""

from __future__ import annotations

import pytest

from tests.conftest import assert_script_confirms, assert_script_flags, requires_torch

SCRIPT = '''\
import io

import torch


def relu_act(x):
    return x.relu()


class Registry:
    def apply_(self, fn):
        return fn


REGISTRY = Registry()


@torch.compile(backend="eager")
def activate(x, name):
    fn = globals()[name + "_act"]
    return fn(x) + eval("1")


@torch.compile(backend="eager")
def describe(x):
    n = len(dir(x))
    return x * n


@torch.compile(backend="eager")
def run_snippet(x):
    exec("pass")
    return x + 1


@torch.compile(backend="eager")
def dump(x):
    buf = io.StringIO()
    return x * 2, buf


@torch.compile(backend="eager")
def halve(x):
    y = x.clone()
    y.apply_(lambda v: v * 0.5)
    REGISTRY.apply_(torch.relu)
    return y + 1


@torch.compile(backend="eager")
def add_into(x):
    y = x.clone()
    y.map_(x, lambda a, b: a + b)
    return y


@torch.compile(backend="eager")
def gate(x, flag):
    if flag.is_nonzero():
        return x * 2
    return x


@torch.compile(backend="eager")
def noisy(x, seed):
    g = torch.Generator().manual_seed(seed)
    return x + torch.randn(x.shape, generator=g)


activate(torch.randn(3), "relu")
describe(torch.randn(3))
run_snippet(torch.randn(3))
dump(torch.randn(3))
halve(torch.randn(3))
add_into(torch.randn(3))
gate(torch.randn(3), torch.tensor([1]))
noisy(torch.randn(3), 0)
'''

EXPECTED = [("BRK242", 20), ("BRK242", 26), ("BRK242", 32), ("BRK214", 38), ("BRK225", 45), ("BRK225", 53),
            ("BRK102", 59), ("BRK236", 66), ("BRK236", 67)]


def test_untraceable_calls_are_flagged_and_their_neighbours_are_not(tmp_path):
    assert_script_flags(tmp_path, SCRIPT, EXPECTED, quiet_lines=(21, 46))  # eval("1"), REGISTRY.apply_


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_the_untraceable_calls(tmp_path):
    assert_script_confirms(tmp_path, SCRIPT, EXPECTED)


# `torch.testing.assert_close` branches on tensor values (BRK237, GB0170); entering anomaly
# detection is an unsupported context manager (BRK405, GB0142: the frame falls back); `asdict` of
# a dataclass holding a tensor deep-copies it (BRK212, GB4198). `copy.deepcopy` of a dict of
# Python values is traced and not flagged.
CHECKS_SCRIPT = '''\
import copy
import dataclasses

import torch


@dataclasses.dataclass
class Output:
    loss: object
    scale: float = 1.0


@torch.compile(backend="eager")
def checked(x, y):
    out = x + y
    torch.testing.assert_close(out - y, x)
    return out


@torch.compile(backend="eager")
def debug_step(x, w):
    with torch.autograd.detect_anomaly():
        loss = (x @ w).sum()
    return loss


@torch.compile(backend="eager")
def as_record(x):
    out = Output(loss=x.mean())
    cfg = copy.deepcopy({"scale": 2.0})
    return dataclasses.asdict(out), cfg


checked(torch.randn(3), torch.randn(3))
debug_step(torch.randn(2, 3), torch.randn(3, 1))
as_record(torch.randn(3))
'''
CHECKS_EXPECTED = [("BRK237", 16), ("BRK405", 22), ("BRK212", 31)]


def test_assert_close_anomaly_mode_and_asdict_are_flagged(tmp_path):
    assert_script_flags(tmp_path, CHECKS_SCRIPT, CHECKS_EXPECTED, quiet_lines=[30])


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_assert_close_anomaly_mode_and_asdict(tmp_path):
    assert_script_confirms(tmp_path, CHECKS_SCRIPT, CHECKS_EXPECTED)


# A deep copy in a method of a plain class (no `nn.Module` base, no tensor attribute): a config
# copying itself or a sub-config read with `getattr(self, name)` is traced on 2.13 and 2.15 (the
# value is of unknown kind, but it is the object's Python state) and is not flagged; the same
# method on a class holding a tensor is.
PLAIN_COPY_SCRIPT = '''\
import copy

import torch


class Config:
    def __init__(self, scale=2.0, sub=None):
        self.scale = scale
        self.sub = sub

    def text_config(self, name=""):
        found = getattr(self, name) if name else self
        return copy.deepcopy(found)


class Stats:
    def __init__(self):
        self.mean = torch.zeros(3)

    def snapshot(self, name=""):
        found = getattr(self, name) if name else self
        return copy.deepcopy(found)


@torch.compile(backend="eager")
def run(x, cfg: Config):
    return x * cfg.text_config().scale


@torch.compile(backend="eager")
def track(x, stats: Stats):
    return x + stats.snapshot("mean")


run(torch.ones(3), Config())
run(torch.ones(3), Config(sub=Config()))
track(torch.ones(3), Stats())
'''


def test_a_deep_copy_of_a_plain_objects_state_is_not_flagged(tmp_path):
    assert_script_flags(tmp_path, PLAIN_COPY_SCRIPT, [("BRK212", 22)], quiet_lines=[13])


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_traces_a_deep_copy_of_a_plain_objects_state(tmp_path):
    assert_script_confirms(tmp_path, PLAIN_COPY_SCRIPT, [("BRK212", 22)])
