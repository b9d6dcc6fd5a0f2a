"""Values a generator function yields, and containers of submodules on `self`.

- A project generator function that yields tensors (or tuples of tensors) gives tensors to the
  loop that iterates it: `for w in windows(x, 4)` binds a tensor, `for a, b in pairs(x, y)`
  two (binding.ReturnCollector). One yielding Python numbers gives no tensor.
- `.items()` / `.values()` of an `nn.ModuleDict` on `self` give (name, submodule) pairs and
  submodules; a dict comprehension of tensors is a dict of tensors, so sorting its `items()`
  by a key computed from the tensor breaks (BRK230, GB0207); a key reading the name does not.
- A break on a lambda's first line but before the lambda (`sorted(..., key=lambda kv: ...)`)
  is the enclosing frame's: a loop break after it makes Dynamo skip only the continuation, so
  the code before it started no frame of its own (no BRK406/BRK407 there).

Measured with `breakscan run` on torch 2.13 and 2.15 (Python 3.11).
"""

from __future__ import annotations

import pytest

from tests.conftest import (
    assert_dynamo_confirms,
    break_statuses,
    rule_lines,
    run_findings,
    static_findings,
    static_located,
    write_files,
)

MODULES = '''\
import torch
from torch import nn


def windows(x, size):
    for start in range(0, x.shape[-1], size):
        yield x[..., start:start + size]


def pairs(x, y):
    for i in range(0, x.shape[0], 2):
        yield x[i:i + 2], y[i:i + 2]


def steps(n):
    for i in range(n):
        yield i * 2


def rescale(t):
    if t.abs().mean() > 1.0:
        t = t / t.abs().max()
    return t


class Heads(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = nn.ModuleDict({"a": nn.Linear(4, 4), "b": nn.Linear(4, 4)})

    def forward(self, x, y):
        for a, b in pairs(x, y):
            x = x + (a * b).sum()
        for k in steps(3):
            if k > 2:
                x = x * 2
        outs = {k: h(x) for k, h in self.heads.items()}
        best = sorted(outs.items(), key=lambda kv: kv[1].mean())[0][0]
        named = sorted(outs.items(), key=lambda kv: kv[0])
        for h in self.heads.values():
            if h(x).sum() > 0:
                x = -x
        return x, best, named


class Windowed(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        outs = []
        for w in windows(x, 4):
            outs.append(self.proj(rescale(w)))
        y = torch.cat(outs, dim=-1)
        print("windows", len(outs))
        return y.relu()


heads = torch.compile(Heads())
windowed = torch.compile(Windowed())
for _ in range(2):
    heads(torch.randn(4, 4), torch.randn(4, 4))
    windowed(torch.randn(2, 16))
'''
# the generator `windows` (a frame Dynamo refuses once Windowed.forward falls back), the branch in
# `rescale` on a window, the sort by a tensor key, the branch on a ModuleDict value's output
MODULES_BREAKS = [("BRK407", 5), ("BRK101", 21), ("BRK230", 38), ("BRK101", 41)]
# `if k > 2` on a yielded int; the sort by name; the print and the generators that ran before
# the sort's break (compiled in the first graph); the comprehension on line 37
MODULES_QUIET = {10, 15, 35, 37, 39, 56}

FUNCTION = '''\
import torch


def pairs(x, y):
    for i in range(0, x.shape[0], 2):
        yield x[i:i + 2], y[i:i + 2]


def counts(n):
    for i in range(n):
        yield i * 2


@torch.compile
def masked_loss(x, y):
    total = x.new_zeros(())
    for k in counts(3):
        if k > 2:
            total = total + 1
    for a, b in pairs(x, y):
        if b.abs().sum() > 0:
            total = total + (a * b).sum()
    return total


for _ in range(2):
    masked_loss(torch.randn(4, 3), torch.randn(4, 3))
'''
# a branch on the second of the tensor pairs a generator yields, in a loop: the frame falls back
# and its eager code starts both generators, which Dynamo refuses (GB0003 at each `def`)
FUNCTION_BREAKS = [("BRK407", 4), ("BRK407", 9), ("BRK101", 21)]
FUNCTION_QUIET = {18}


@pytest.mark.parametrize("source,breaks,quiet", [(MODULES, MODULES_BREAKS, MODULES_QUIET),
                                                 (FUNCTION, FUNCTION_BREAKS, FUNCTION_QUIET)],
                         ids=["modules", "function"])
def test_static_pass_predicts_breaks_of_yielded_tensors(tmp_path, source, breaks, quiet):
    found = rule_lines(static_findings(tmp_path, {"train.py": source}))
    for hit in breaks:
        assert hit in found, found
    assert not {(rule, line) for rule, line in found if line in quiet}, found


def test_branch_on_a_yielded_tensors_shape_is_no_break(tmp_path):
    """`a.shape[0]` of a yielded tensor is a Python int (static shapes): nothing breaks, so no
    frame falls back and no generator frame is started eagerly."""
    source = FUNCTION.replace("        if b.abs().sum() > 0:\n", "        if a.shape[0] > 0:\n")
    found = rule_lines(static_findings(tmp_path, {"train.py": source}))
    assert not found, found


@pytest.mark.dynamic
@pytest.mark.versions
@pytest.mark.parametrize("source,breaks", [(MODULES, MODULES_BREAKS), (FUNCTION, FUNCTION_BREAKS)],
                         ids=["modules", "function"])
def test_dynamo_confirms_breaks_of_yielded_tensors(tmp_path, source, breaks):
    write_files(tmp_path, {"train.py": source})
    found = break_statuses(run_findings(tmp_path, "train.py"))
    assert_dynamo_confirms(found, [(rule, "train.py", line) for rule, line in breaks])


# The thirteenth session's user check: a package run as `breakscan run -m audio.train` (relative
# imports). A generator of time chunks whose consumer breaks in the loop (the frame falls back,
# the generator frame is refused), a dict comprehension over a ModuleDict after it (BRK406), a
# sort by a tensor key on a line with a lambda after it (runs eagerly: not predicted), and a
# SpecAugment-style draw compiled with `dynamic=True` (BRK266 twice).
PACKAGE = {
    "audio/__init__.py": '''\
''',
    "audio/augment.py": '''\
import random

import torch


def time_chunks(spec, size):
    for start in range(0, spec.shape[-1], size):
        yield spec[..., start:start + size]


def normalize(chunk):
    peak = chunk.abs().max()
    if peak > 4:
        chunk = chunk / peak
    return chunk


def mask_time(spec, width):
    w = random.randint(0, width)
    start = random.randint(0, spec.shape[-1] - w)
    out = spec.clone()
    out[..., start:start + w] = 0
    return out
''',
    "audio/model.py": '''\
import torch
from torch import nn

from .augment import normalize, time_chunks


class Tagger(nn.Module):
    def __init__(self, n_mels=16, hidden=32):
        super().__init__()
        self.enc = nn.Linear(n_mels, hidden)
        self.heads = nn.ModuleDict({"speech": nn.Linear(hidden, 1), "music": nn.Linear(hidden, 1)})

    def forward(self, spec):
        pooled = []
        for chunk in time_chunks(spec, 8):
            pooled.append(normalize(chunk).mean(-1))
        h = self.enc(torch.stack(pooled, 1)).mean(1)
        scores = {name: head(h).squeeze(-1) for name, head in self.heads.items()}
        ranked = sorted(scores.items(), key=lambda kv: kv[1].mean())
        return scores, ranked[-1][0]
''',
    "audio/train.py": '''\
import torch

from .augment import mask_time
from .model import Tagger

augment = torch.compile(mask_time, dynamic=True)


def main():
    model = torch.compile(Tagger())
    conf = {"width": 4}
    for step in range(3):
        spec = augment(torch.randn(2, 16, 32), conf["width"])
        scores, best = model(spec)
        print(f"step {step}: best={best}")


if __name__ == "__main__":
    main()
''',
}
PACKAGE_BREAKS = [("BRK407", "augment.py", 6), ("BRK101", "augment.py", 13), ("BRK266", "augment.py", 19),
                  ("BRK266", "augment.py", 20), ("BRK406", "model.py", 18)]


def test_a_package_with_a_generator_and_dynamic_draws(tmp_path):
    found = static_located(tmp_path, PACKAGE)
    assert set(PACKAGE_BREAKS) <= found, found
    assert not {f for f in found if f[1] == "model.py" and f[2] == 19}, found  # runs eagerly


@pytest.mark.dynamic
@pytest.mark.versions
def test_dynamo_confirms_the_package_breaks(tmp_path):
    write_files(tmp_path, PACKAGE)
    findings = run_findings(tmp_path, "audio.train", module=True)
    assert_dynamo_confirms(break_statuses(findings), PACKAGE_BREAKS)
