"""Values a user's script gives the compiled code, driven through `breakscan run` on 2.13 and 2.15:

- a module-level loop counter passed to a compiled function (`for step in range(n):
  train_step(model, opt, x, y, step)`, or `step = 0` then `step += 1`) is a Python int, not a
  tensor: `math.cos(math.pi * step / total)` does not break, so the function is not taken to be
  skipped after a break in its `for group in opt.param_groups` loop, and the breaks that follow
  (`opt.zero_grad()`, `loss.backward()`, `opt.step()`, `print(loss.item())`) are predicted;
- a value of `random.randint`, `random.uniform`, `random.randrange` (and `random.random()` from
  torch 2.14, where BRK205 no longer breaks at the call) is traced into a 0-dim tensor: a branch
  on it breaks (GB0170), a slice bound reads it (GB0124), arithmetic with a tensor does not
  break, and arithmetic with a Python number makes the frame fall back (GB0213, BRK264).
"""

from __future__ import annotations

import libcst as cst
import pytest

from tests.conftest import (
    assert_dynamo_confirms,
    break_statuses,
    requires_torch,
    rule_lines,
    run_findings,
    static_findings,
    static_located,
    write_files,
)
from breakscan.static.checks.call_sites import module_numbers

TRAIN_STEP = '''\
import math
import torch
import torch.nn as nn
import torch.nn.functional as F


def cosine_lr(step, total, base=1e-3):
    return base * 0.5 * (1 + math.cos(math.pi * step / total))


@torch.compile
def train_step(model, opt, x, y, step):
    for group in opt.param_groups:
        group["lr"] = cosine_lr(step, 100)
    loss = F.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(f"step {step} loss {loss.item():.4f}")
    return loss.detach()


model = nn.Linear(8, 8)
opt = torch.optim.AdamW(model.parameters())
for step in range(3):
    train_step(model, opt, torch.randn(4, 8), torch.randn(4, 8), step)
'''
TRAIN_STEP_BREAKS = [("BRK256", "train.py", 16), ("BRK217", "train.py", 17), ("BRK257", "train.py", 18),
                     ("BRK201", "train.py", 20), ("BRK102", "train.py", 20)]


def test_a_module_level_loop_counter_is_a_python_int(tmp_path):
    found = rule_lines(static_findings(tmp_path, {"train.py": TRAIN_STEP}))
    assert ("BRK104", 8) not in found, found
    assert {(rule, line) for rule, _, line in TRAIN_STEP_BREAKS} <= found, found


@pytest.mark.parametrize("loop", [
    "step = 0\nwhile step < 3:\n    step += 1\n    train_step(model, opt, torch.randn(4, 8), torch.randn(4, 8), step)\n",
    "for step, batch in enumerate([1, 2]):\n    train_step(model, opt, torch.randn(4, 8), torch.randn(4, 8), step)\n",
    "if __name__ == '__main__':\n    for epoch in range(2):\n        for step in range(3):\n"
    "            train_step(model, opt, torch.randn(4, 8), torch.randn(4, 8), step)\n",
])
def test_other_spellings_of_a_script_counter(tmp_path, loop):
    source = TRAIN_STEP.rsplit("for step in range(3):", 1)[0] + loop
    found = rule_lines(static_findings(tmp_path, {"train.py": source}))
    assert ("BRK104", 8) not in found and ("BRK217", 17) in found, found


def test_module_numbers_keeps_only_names_bound_to_numbers():
    module = cst.parse_module(
        "import torch\n"
        "step = 0\n"
        "lr = 1e-3\n"
        "t = torch.tensor(0)\n"
        "for i in range(3):\n"
        "    step += 1\n"
        "    t = t + 1\n"
        "for k, v in enumerate(items):\n"
        "    pass\n"
        "for x in loader:\n"
        "    pass\n"
        "n = 1\n"
        "n = len(items)\n"
        "if True:\n"
        "    m = -2\n"
        "else:\n"
        "    m = 3\n"
        "def f():\n"
        "    pass\n"
    )
    assert module_numbers(module) == {"step", "lr", "i", "k", "m"}


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_the_breaks_after_the_loop_over_param_groups(tmp_path):
    write_files(tmp_path, {"train.py": TRAIN_STEP})
    assert_dynamo_confirms(break_statuses(run_findings(tmp_path, "train.py")), TRAIN_STEP_BREAKS)


RANDOM = '''\
import random
import torch
import torch.nn as nn


class Augment(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.p = 0.5

    def forward(self, x):
        h = self.proj(x)
        k = random.randint(0, 3)
        if k == 0:
            h = h.flip(-1)
        scale = random.uniform(0.5, 1.5)
        h = h * scale
        n = random.randrange(1, 4)
        h = h[:, :n]
        return h


model = torch.compile(Augment())
for _ in range(3):
    model(torch.randn(2, 8))
'''
RANDOM_BREAKS = [("BRK101", "train.py", 15), ("BRK258", "train.py", 20)]

RANDOM_FLOAT = '''\
import random
import torch
import torch.nn as nn


class Dropish(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.p = 0.5

    def forward(self, x):
        h = self.proj(x)
        if random.random() < self.p:
            h = h * 0
        return h


model = torch.compile(Dropish())
for _ in range(3):
    model(torch.randn(2, 8))
'''


def test_values_of_traced_random_calls_are_tensors(tmp_path):
    found = rule_lines(static_findings(tmp_path, {"train.py": RANDOM}))
    assert {("BRK101", 15), ("BRK258", 20)} <= found and not {f for f in found if f[1] in (17, 18)}, found


def test_random_random_breaks_at_the_call_before_2_14_and_at_the_branch_from_2_14(tmp_path):
    from breakscan.catalog import load_catalog
    from breakscan.config import Config
    from breakscan.scan import active_rules, parse_version
    from breakscan.static.engine import scan_files

    path = write_files(tmp_path, {"train.py": RANDOM_FLOAT})[0]
    for version, expected in (("2.13", {("BRK205", 14)}), ("2.15", {("BRK101", 14)})):
        rules = active_rules(load_catalog(), Config(), parse_version(version))
        found = rule_lines(scan_files([path], rules).findings)
        assert {f for f in found if f[0] in ("BRK101", "BRK205")} == expected, (version, found)


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_branches_and_slices_on_traced_random_values(tmp_path):
    write_files(tmp_path / "ints", {"train.py": RANDOM})
    assert_dynamo_confirms(break_statuses(run_findings(tmp_path / "ints", "train.py")), RANDOM_BREAKS)
    import torch

    newer = tuple(int(p) for p in torch.__version__.split(".")[:2]) >= (2, 14)
    write_files(tmp_path / "floats", {"float.py": RANDOM_FLOAT})
    expected = [("BRK101" if newer else "BRK205", "float.py", 14)]
    assert_dynamo_confirms(break_statuses(run_findings(tmp_path / "floats", "float.py")), expected)


RANDOM_ARITHMETIC = '''\
import math
import random
import torch
import torch.nn as nn


class Rotate(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(2, 2)

    def forward(self, pos):
        degree = math.pi * random.uniform(0.0, 90.0) / 180.0
        sin, cos = math.sin(degree), math.cos(degree)
        matrix = torch.tensor([[cos, sin], [-sin, cos]])
        return self.proj(pos @ matrix)


model = torch.compile(Rotate())
for _ in range(2):
    model(torch.randn(5, 2))
'''


def test_arithmetic_between_a_random_number_and_a_python_number(tmp_path):
    found = rule_lines(static_findings(tmp_path, {"train.py": RANDOM_ARITHMETIC}))
    assert ("BRK264", 13) in found and not {f for f in found if f[1] > 13}, found


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_the_frame_falls_back_at_random_number_arithmetic(tmp_path):
    write_files(tmp_path, {"train.py": RANDOM_ARITHMETIC})
    assert_dynamo_confirms(break_statuses(run_findings(tmp_path, "train.py")), [("BRK264", "train.py", 13)])


GENERATE = '''\
import torch


@torch.compile
def generate(logits, steps=4, temperature=1.0):
    out = []
    for _ in range(steps):
        probs = torch.softmax(logits / temperature, dim=-1)
        out.append(probs.argmax(-1))
    return torch.stack(out)


CALLS
'''


@pytest.mark.parametrize("calls, flagged", [
    ("generate(torch.randn(2, 5))\ngenerate(torch.randn(2, 5))", False),  # the default every time
    ("generate(torch.randn(2, 5), temperature=1.0)\ngenerate(torch.randn(2, 5), 4, 1.0)", False),
    ("generate(torch.randn(2, 5), temperature=0.7)\ngenerate(torch.randn(2, 5))", True),  # 0.7, then 1.0
    ("for t in (0.5, 1.0):\n    generate(torch.randn(2, 5), temperature=t)", True),  # not a literal
])
def test_a_number_parameter_every_call_gives_one_value_does_not_recompile(tmp_path, calls, flagged):
    found = rule_lines(static_findings(tmp_path, {"train.py": GENERATE.replace("CALLS", calls)}))
    assert (("BRK502", 8) in found) is flagged, found


@pytest.mark.dynamic
@requires_torch
def test_dynamo_recompiles_only_where_the_calls_give_two_values(tmp_path):
    once = GENERATE.replace("CALLS", "generate(torch.randn(2, 5))\ngenerate(torch.randn(2, 5))")
    twice = GENERATE.replace("CALLS", "generate(torch.randn(2, 5), temperature=0.7)\ngenerate(torch.randn(2, 5))")
    write_files(tmp_path / "once", {"train.py": once})
    write_files(tmp_path / "twice", {"train.py": twice})
    quiet = run_findings(tmp_path / "once", "train.py")
    assert not [f for f in quiet if f["kind"] == "recompile"], quiet
    loud = run_findings(tmp_path / "twice", "train.py")
    assert [f for f in loud if f["rule_id"] == "BRK502" and f["status"] == "confirmed"], loud


# A package run as `breakscan run -m aug.train` (relative imports): a multi-task model whose
# heads are called in a dict comprehension over `ModuleDict.items()` (BRK410), a jitter module
# mixing `math.radians(1.0)` with `random.uniform(...)` (BRK264), and a compiled train step
# called from a module-level loop whose loss is a `sum(...)` of `o.pow(2).mean()` over the
# model's outputs (BRK217 at `loss.backward()`).
PACKAGE = {
    "aug/__init__.py": "",
    "aug/layers.py": '''\
import math
import random

import torch
import torch.nn as nn


class Head(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, h):
        out = self.proj(h)
        if out.abs().max() > 50:
            out = out / out.abs().max()
        return out


class Jitter(nn.Module):
    def __init__(self, max_deg=10.0):
        super().__init__()
        self.max_deg = max_deg

    def forward(self, x):
        theta = math.radians(1.0) * random.uniform(-self.max_deg, self.max_deg)
        return x * math.cos(theta)
''',
    "aug/model.py": '''\
import torch
import torch.nn as nn

from .layers import Head, Jitter


class MultiTask(nn.Module):
    def __init__(self, dim=16, tasks=("cls", "reg")):
        super().__init__()
        self.encoder = nn.Linear(dim, dim)
        self.jitter = Jitter()
        self.heads = nn.ModuleDict({name: Head(dim) for name in tasks})

    def forward(self, x):
        h = self.encoder(x)
        if self.training:
            h = self.jitter(h)
        outs = {name: head(h) for name, head in self.heads.items()}
        print("tasks", list(outs))
        return outs
''',
    "aug/train.py": '''\
import torch

from .model import MultiTask


@torch.compile
def train_step(model, opt, x, step, total=100):
    outs = model(x)
    loss = sum(o.pow(2).mean() for o in outs.values())
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 2 == 0:
        print("step", step, loss.item())
    return loss.detach()


model = MultiTask()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(3):
    train_step(model, opt, torch.randn(4, 16), step)
''',
}
PACKAGE_BREAKS = [("BRK101", "layers.py", 15), ("BRK264", "layers.py", 26), ("BRK410", "model.py", 18),
                  ("BRK256", "train.py", 10), ("BRK217", "train.py", 11), ("BRK257", "train.py", 12),
                  ("BRK201", "train.py", 14), ("BRK102", "train.py", 14)]


def test_a_package_with_a_compiled_train_step(tmp_path):
    found = static_located(tmp_path, PACKAGE)
    assert set(PACKAGE_BREAKS) <= found, found


def test_a_capitalized_receiver_of_backward_is_a_class(tmp_path):
    source = "import torch\n\n\n@torch.compile\ndef step(ctx, g):\n    return Fn.backward(ctx, g)\n"
    assert ("BRK217", 6) not in rule_lines(static_findings(tmp_path, {"train.py": source}))


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_the_package_breaks(tmp_path):
    write_files(tmp_path, PACKAGE)
    findings = run_findings(tmp_path, "aug.train", module=True)
    assert_dynamo_confirms(break_statuses(findings), PACKAGE_BREAKS)


NUMBER_AT_ONE_CALL = '''\
import torch
from torch import nn


@torch.compile
def sample_points(xyz, npoint):
    out = []
    for i in range(npoint):
        out.append(xyz[:, i])
    return torch.stack(out, 1)


class Down(nn.Module):
    def __init__(self, npoint):
        super().__init__()
        self.npoint = npoint
        self.proj = nn.Linear(3, 8)

    def forward(self, xyz):
        picked = sample_points(xyz, self.npoint)
        return self.proj(picked)


model = Down(4)
for _ in range(2):
    model(torch.randn(2, 16, 3))
print(sample_points(torch.randn(2, 16, 3), 8).shape)
'''


def test_root_parameter_given_a_number_at_one_call_is_a_number(tmp_path):
    """`sample_points(xyz, 8)` at one call and `sample_points(xyz, self.npoint)` (unknown) at the
    other: `npoint` is a Python int, so `range(npoint)` is traced (no BRK107; before, the root
    convention took it for a tensor: a false alarm on a PointNet++ probe)."""
    assert not rule_lines(static_findings(tmp_path, {"train.py": NUMBER_AT_ONE_CALL}))


@pytest.mark.dynamic
@pytest.mark.versions
def test_dynamo_traces_range_of_a_root_number(tmp_path):
    write_files(tmp_path, {"train.py": NUMBER_AT_ONE_CALL})
    found = break_statuses(run_findings(tmp_path, "train.py"))
    assert not found, found
