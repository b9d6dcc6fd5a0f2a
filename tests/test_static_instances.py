"""Objects of the project's own classes that a compiled region holds, in a user's package driven
through `breakscan run` (static pass and Dynamo on the same lines):
- a parameter annotated with a project class (`sched: LinearScheduler`) and a local bound to
  `Class(...)` in the def: their tensor attributes (`sched.sigmas`, set to a torch factory's
  result in `__init__`) are tensors, and their method calls (`meter.update(loss)`) are traced
  with the arguments passed there, so a branch on a tensor argument there breaks (BRK101,
  GB0170 on 2.13 and 2.15);
- `self.scheduler.timesteps`, a tensor attribute of the object `__init__` stores in
  `self.scheduler`: the class the project's calls of `Pipeline` build there, else the class the
  `__init__` parameter is annotated with (here the call passes `make_scheduler()`);
- a number parameter (`timestep: int`) given a tensor at every traced call, compared through a
  local computed from it (`prev = timestep - 1`, `if prev < 0`): Dynamo sees the tensor.
A Python number passed to such a method (`meter.clip(3)`) stays a number: not flagged. What a
method of a local instance returns is read from its body, its class in another file too
(`avg = meter.compute()` returning `self.total / ...`). An unannotated parameter of a compiled
function that every call in its module passes such an object (`meter = Meter()` in `main()`) holds
one too. A class-level field annotated as a tensor (`logits: torch.Tensor` in a NamedTuple or a
dataclass) is a tensor attribute of the class.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from breakscan.catalog import load_catalog
from breakscan.static.cache import Cache
from breakscan.static.engine import scan_files
from tests.conftest import (
    assert_dynamo_confirms,
    break_statuses,
    requires_torch,
    run_findings,
    static_findings,
    write_files,
)

SCHEDULER = '''\
import torch


class LinearScheduler:
    """Steps a sample back along a linear noise schedule."""

    def __init__(self, steps: int = 4):
        self.timesteps = torch.arange(steps).flip(0)
        self.sigmas = torch.linspace(1.0, 0.0, steps)

    def step(self, out, timestep: int, sample):
        prev = timestep - 1
        if prev < 0:
            return sample - out
        return sample - 0.1 * out
'''

PIPELINE = '''\
from torch import nn

from .scheduler import LinearScheduler


class Pipeline:
    def __init__(self, model: nn.Module, scheduler: LinearScheduler):
        self.model = model
        self.scheduler = scheduler

    def denoise(self, x):
        for t in self.scheduler.timesteps:
            x = self.scheduler.step(self.model(x), t, x)
        return x
'''

# A metric object the scripts below hold in two ways (a parameter annotated with its class, a
# local built in the compiled function); `update` branches on its tensor argument.
METER = '''\
class Meter:
    def __init__(self):
        self.best = torch.tensor(float("inf"))

    def update(self, loss):
        if loss < self.best:
            self.best = loss
        return self.best

    def clip(self, n):
        if n > 2:
            return self.best.clamp(max=n)
        return self.best
'''

TRAIN = '''\
import torch
from torch import nn

from sched.pipeline import Pipeline
from sched.scheduler import LinearScheduler


''' + METER + '''

@torch.compile(backend="eager")
def evaluate(model, x, meter: Meter):
    loss = (model(x) - x).pow(2).mean()
    meter.update(loss)
    return meter.clip(3)


@torch.compile(backend="eager")
def noise_level(x, sched: LinearScheduler):
    if sched.sigmas.max() > 0.5:
        return x * 2
    return x


def main():
    model = nn.Linear(4, 4)
    pipe = Pipeline(model, make_scheduler())
    print(torch.compile(pipe.denoise, backend="eager")(torch.randn(2, 4)).shape)
    print(evaluate(model, torch.randn(2, 4), Meter()))
    print(noise_level(torch.randn(2, 4), LinearScheduler()).shape)


def make_scheduler():
    return LinearScheduler(steps=4)


if __name__ == "__main__":
    main()
'''

FILES = {"sched/__init__.py": "", "sched/scheduler.py": SCHEDULER, "sched/pipeline.py": PIPELINE,
         "train.py": TRAIN}
BREAKS = [("BRK101", "scheduler.py", 13), ("BRK101", "train.py", 13), ("BRK101", "train.py", 32)]

# The same meter built inside the compiled function: a local instance. (Dynamo confirms the
# branch in `update`; it also fails to reconstruct the bound method of the object built in the
# graph at the call, GB0092, a follow-on break no rule predicts.)
LOCAL = '''\
import torch


''' + METER + '''

@torch.compile(backend="eager")
def evaluate(model, x):
    meter = Meter()
    loss = (model(x) - x).pow(2).mean()
    meter.update(loss)
    if meter.best > 1:
        loss = loss / 2
    return meter.clip(3)
'''


def _flagged(tmp_path, files) -> set[tuple[str, str, int]]:
    """{(rule id, file name, line)} the static pass flags in `files`."""
    return {(f.rule_id, Path(f.path).name, f.line) for f in static_findings(tmp_path, files)}


def test_instances_of_project_classes_are_read_through(tmp_path):
    found = _flagged(tmp_path, FILES)
    for hit in BREAKS:
        assert hit in found, found
    assert ("BRK101", "train.py", 18) not in found, found  # `n > 2`: clip is passed 3


def test_a_local_instance_is_read_through(tmp_path):
    found = _flagged(tmp_path, {"train.py": LOCAL})
    assert {("BRK101", "train.py", 9), ("BRK101", "train.py", 24)} <= found, found
    assert ("BRK101", "train.py", 14) not in found, found


def test_the_stored_class_comes_from_the_calls_before_the_annotation(tmp_path):
    """A call of `Pipeline` that builds another class in its `scheduler` argument wins over the
    annotation: `self.scheduler.step(...)` then runs `Plain.step`, so `LinearScheduler.step` is
    outside the region (the annotation is read only where no call builds a class there)."""
    other = PIPELINE + "\n\nclass Plain:\n    timesteps = [3, 2, 1]\n\n    def step(self, out, timestep, sample):\n" \
        "        return sample\n\n\nPIPE = Pipeline(None, Plain())\n"
    found = _flagged(tmp_path, {**FILES, "sched/pipeline.py": other})
    assert ("BRK101", "scheduler.py", 13) not in found, found


def test_a_rebound_or_unannotated_name_is_no_instance(tmp_path):
    source = LOCAL.replace("    meter = Meter()\n", "    meter = Meter()\n    meter = make_meter()\n")
    found = _flagged(tmp_path, {"train.py": source})
    assert not {hit for hit in found if hit[2] in (9, 25)}, found


# What a method of a local instance returns, its class in another file: `meter.compute()` reads
# `self.total`, a tensor, so `avg > 1.0` branches on a tensor.
METRICS = '''\
import torch


class Meter:
    def __init__(self):
        self.total = torch.zeros(())
        self.count = 0

    def update(self, value, n=1):
        self.total = self.total + value * n
        self.count = self.count + n

    def compute(self):
        return self.total / max(self.count, 1)
'''

EVALUATE = '''\
import torch
import torch.nn as nn

from proj.metrics import Meter


@torch.compile(backend="eager")
def evaluate(model, batches):
    meter = Meter()
    for x, y in batches:
        meter.update(nn.functional.mse_loss(model(x), y), x.shape[0])
    avg = meter.compute()
    if avg > 1.0:
        return avg * 0
    return avg


evaluate(nn.Linear(4, 4), [(torch.randn(2, 4), torch.randn(2, 4)) for _ in range(2)])
'''
RETURN_FILES = {"proj/__init__.py": "", "proj/metrics.py": METRICS, "train.py": EVALUATE}


def test_a_method_of_a_local_instance_returns_what_its_body_reads(tmp_path):
    assert ("BRK101", "train.py", 13) in _flagged(tmp_path, RETURN_FILES)


def test_editing_the_class_file_checks_the_caller_again(tmp_path):
    """The file whose method body was read is part of the caller's cache key: once `compute`
    returns a Python number, a warm run no longer flags the branch on it."""
    paths = write_files(tmp_path, RETURN_FILES)
    rules = list(load_catalog().values())
    first = scan_files(paths, rules, cache=Cache(tmp_path / "cache")).findings
    assert ("BRK101", 13) in {(f.rule_id, f.line) for f in first if f.path.endswith("train.py")}
    metrics = tmp_path / "proj" / "metrics.py"
    metrics.write_text(metrics.read_text().replace("return self.total / max(self.count, 1)", "return 0.5"))
    again = scan_files(paths, rules, cache=Cache(tmp_path / "cache")).findings
    assert ("BRK101", 13) not in {(f.rule_id, f.line) for f in again if f.path.endswith("train.py")}


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_a_branch_on_a_local_instance_method_return(tmp_path):
    write_files(tmp_path, RETURN_FILES)
    found = break_statuses(run_findings(tmp_path, "train.py"))
    assert_dynamo_confirms(found, [("BRK101", "train.py", 13)])


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_breaks_through_instances(tmp_path):
    write_files(tmp_path, FILES)
    found = break_statuses(run_findings(tmp_path, "train.py"))
    assert_dynamo_confirms(found, BREAKS)


# An object built in `main()` and passed to a compiled function at every call of it in the module
# (index.passed_instances): `meter` is a Meter in `train_step`, so its method is traced with the
# loss and its tensor attribute read (BRK101 twice); it is not a tensor by the root convention.
PASSED = '''\
import torch
import torch.nn as nn


class Meter:
    def __init__(self):
        self.best = torch.tensor(float("inf"))

    def update(self, loss):
        if loss < self.best:
            self.best = loss
        return self.best


@torch.compile(backend="eager")
def train_step(model, x, meter):
    loss = (model(x) - x).pow(2).mean()
    meter.update(loss)
    if meter.best < 0.1:
        loss = loss * 0
    return loss


def main():
    model = nn.Linear(4, 4)
    meter = Meter()
    for _ in range(2):
        train_step(model, torch.randn(2, 4), meter)


if __name__ == "__main__":
    main()
'''
PASSED_BREAKS = [("BRK101", "train.py", 10), ("BRK101", "train.py", 19)]


def test_an_object_every_call_passes_is_an_instance(tmp_path):
    found = _flagged(tmp_path, {"train.py": PASSED})
    assert set(PASSED_BREAKS) <= found, found


def test_an_object_some_call_does_not_pass_is_unknown(tmp_path):
    other = PASSED + "\n\ntrain_step(nn.Linear(4, 4), torch.randn(2, 4), object())\n"
    found = _flagged(tmp_path, {"train.py": other})
    assert not {hit for hit in found if hit[2] in (10, 19)}, found


def test_a_module_level_object_is_passed_beside_a_def_named_like_the_module(tmp_path):
    """`METER = Meter()` at module level of `train.py`, which also defines `def train()`: the
    class is read as the module spells it (`Meter`), not as `train.Meter`, which the module's
    own `train` would shadow."""
    source = PASSED.replace("def main():", "def train():\n    return None\n\n\ndef main():") \
        + "\n\nMETER = Meter()\ntrain_step(nn.Linear(4, 4), torch.randn(2, 4), METER)\n"
    loop = "    meter = Meter()\n    for _ in range(2):\n        train_step(model, torch.randn(2, 4), meter)"
    source = source.replace(loop, "    return model")
    found = _flagged(tmp_path, {"train.py": source})
    assert ("BRK101", "train.py", 10) in found, found


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_breaks_through_a_passed_object(tmp_path):
    write_files(tmp_path, {"train.py": PASSED})
    assert_dynamo_confirms(break_statuses(run_findings(tmp_path, "train.py")), PASSED_BREAKS)


# Class-level field annotations declare the attributes' types (PEP 526), as in dataclasses,
# NamedTuples and HF ModelOutputs: `out.logits` of a local NamedTuple is a tensor (BRK101); a
# `str` field is not (`batch.name == "train"` is traced).
FIELDS = '''\
from dataclasses import dataclass
from typing import NamedTuple, Optional

import torch
import torch.nn as nn


@dataclass
class Batch:
    x: torch.Tensor
    label: Optional[torch.Tensor] = None
    name: str = "train"


class Output(NamedTuple):
    logits: torch.Tensor
    loss: float


@torch.compile(backend="eager")
def step(model, batch: Batch):
    out = Output(logits=model(batch.x), loss=0.0)
    if out.logits.sum() > 0:
        out = Output(logits=out.logits * 2, loss=1.0)
    if batch.name == "train":
        return out.logits + 1
    return out.logits


model = nn.Linear(4, 4)
step(model, Batch(torch.randn(5, 4)))
step(model, Batch(torch.randn(5, 4)))
'''


def test_annotated_class_fields_are_attribute_kinds(tmp_path):
    found = _flagged(tmp_path, {"train.py": FIELDS})
    assert ("BRK101", "train.py", 23) in found, found
    assert ("BRK101", "train.py", 25) not in found, found


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_a_branch_on_an_annotated_field(tmp_path):
    write_files(tmp_path, {"train.py": FIELDS})
    assert_dynamo_confirms(break_statuses(run_findings(tmp_path, "train.py")), [("BRK101", "train.py", 23)])
