"""Values the static pass follows through Python containers and module instances, each checked
against Dynamo on a script run as users run it (`breakscan run`):

- a Python list, tuple or string indexed by a tensor (BRK261): `__index__` reads it with `.item()`;
- the elements `zip(...)` and `enumerate(...)` give in a `for` loop: rows of a tensor are tensors
  (`int(i)` of one is BRK104), the `enumerate` counter is a Python int;
- pad widths of `F.pad` computed as a tensor (BRK108);
- the arguments a compiled module instance is called with are its `forward`'s parameters
  (`loss(pred, target, valid)` with a boolean `valid`: `x[valid]` is BRK106);
- a deep copy of a plain Python value is traced, of a computed tensor it breaks (BRK212);
- `for layer in self` in an nn.Sequential subclass gives submodules, and an attribute bound on a
  local object (`out.loss = ...`) reads back with its kind.
"""

from __future__ import annotations

import pytest

from tests.conftest import (assert_dynamo_confirms, break_statuses, requires_torch, rule_lines, run_findings,
                            static_findings, write_files)

def dynamo_statuses(tmp_path, source: str) -> set[tuple[str, str, int, str]]:
    """`breakscan run train.py` on `source` in a fresh directory: the statuses of its breaks."""
    write_files(tmp_path, {"train.py": source})
    return break_statuses(run_findings(tmp_path, "train.py"))


SEQUENCES = '''\
import torch
import torch.nn.functional as F

CLASSES = ["cat", "dog", "bird"]
SCALES = (0.5, 1.0, 2.0)


@torch.compile(backend="eager")
def predict(logits):
    probs = logits.softmax(-1)
    label = CLASSES[probs.argmax()]
    return probs * SCALES[1], label


@torch.compile(backend="eager")
def group_sum(values, ids):
    totals = {}
    for v, i in zip(values, ids):
        totals[int(i)] = totals.get(int(i), 0) + v
    return totals


@torch.compile(backend="eager")
def weighted(feats):
    out = 0
    for i, f in enumerate(feats):
        out = out + f * SCALES[i]
    return out


@torch.compile(backend="eager")
def pad_to(x, lengths):
    longest = lengths.max()
    return F.pad(x, (0, longest - x.shape[-1]))


class Router(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.experts = torch.nn.ModuleList([torch.nn.Linear(2, 2) for _ in range(3)])

    def forward(self, x):
        idx = x.sum(-1).argmax()
        return self.experts[idx](x)


router = torch.compile(Router(), backend="eager")
print(router(torch.rand(3, 2)).shape)
print(predict(torch.rand(3))[1])
print(group_sum(torch.rand(4), torch.tensor([0, 1, 0, 1])))
print(weighted([torch.rand(2), torch.rand(2)]).shape)
print(pad_to(torch.rand(2, 3), torch.tensor([5, 4])).shape)
'''


def test_sequence_index_zip_rows_and_pad_widths_are_predicted(tmp_path):
    found = rule_lines(static_findings(tmp_path, SEQUENCES))
    assert ("BRK261", 11) in found, found  # CLASSES[probs.argmax()]
    assert ("BRK104", 19) in found, found  # int(i), i a row of `ids`
    assert ("BRK108", 34) in found, found  # F.pad widths from lengths.max()
    assert ("BRK261", 44) in found, found  # self.experts[idx]: a module list indexed by a tensor
    # SCALES[1] (an int index) and SCALES[i] (`enumerate`'s counter) are plain Python indexing.
    assert not {(r, line) for r, line in found if line in (12, 27)}, found


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_sequence_index_zip_rows_and_pad_widths(tmp_path):
    found = dynamo_statuses(tmp_path, SEQUENCES)
    assert_dynamo_confirms(found, [("BRK261", "train.py", 11), ("BRK104", "train.py", 19),
                                   ("BRK108", "train.py", 34), ("BRK261", "train.py", 44)])


INSTANCES = '''\
import torch
import torch.nn as nn


class MaskedL1(nn.Module):
    def forward(self, pred, target, valid):
        diff = (pred - target)[valid]
        return diff.abs().mean()


class Scaled(nn.Module):
    def forward(self, x, factor):
        if factor > 2:
            return x * factor
        return x


loss_fn = torch.compile(MaskedL1(), backend="eager")
scaled = torch.compile(Scaled(), backend="eager")
loss_fn.train()


def main():
    pred, target = torch.rand(6), torch.rand(6)
    valid = torch.tensor([1, 0, 1, 1, 0, 1], dtype=torch.bool)
    print(loss_fn(pred, target, valid).item())
    print(loss_fn(pred, target, pred > 0.5).item())
    print(scaled(pred, 3).sum().item())


if __name__ == "__main__":
    main()
'''


def test_forward_parameters_take_what_the_instance_calls_pass(tmp_path):
    found = rule_lines(static_findings(tmp_path, INSTANCES))
    assert ("BRK106", 7) in found, found  # every call passes a boolean mask
    assert ("BRK101", 13) not in found, found  # `factor` is the int 3 at its only call


def test_an_instance_used_otherwise_keeps_the_convention(tmp_path):
    """Passed to a function, the instance may be called anywhere: its calls say nothing."""
    source = INSTANCES.replace("    main()", "    main()\n    print(run_twice(loss_fn))") + '''

def run_twice(fn):
    x = torch.rand(6)
    return fn(x, x, x)
'''
    assert ("BRK106", 7) not in rule_lines(static_findings(tmp_path, source))


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_the_mask_passed_to_a_compiled_instance(tmp_path):
    found = dynamo_statuses(tmp_path, INSTANCES)
    assert_dynamo_confirms(found, [("BRK106", "train.py", 7)])


CALLABLES = '''\
import torch


class Clamp:
    def __init__(self, hi):
        self.hi = hi

    def __call__(self, x):
        if x.max() > self.hi:
            x = x.clamp(max=self.hi)
        return x


clamp = Clamp(0.5)


@torch.compile(backend="eager")
def post(x):
    return clamp(x * 2)


@torch.compile(backend="eager")
def any_nan(tensors):
    if any(torch.isnan(t).any() for t in tensors):
        return tensors[0]
    return tensors[0] * 2, all(t.shape[0] == 3 for t in tensors)


print(post(torch.rand(3)).shape)
print(any_nan([torch.rand(3), torch.rand(3)])[0].shape)
'''


def test_instance_call_arguments_and_any_over_tensors_are_predicted(tmp_path):
    found = rule_lines(static_findings(tmp_path, CALLABLES))
    assert ("BRK101", 9) in found, found  # x is what `clamp(x * 2)` passes: a tensor
    assert ("BRK101", 24) in found, found  # any() of tensor conditions
    assert ("BRK101", 26) not in found, found  # all() of shape tests


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_instance_call_arguments_and_any_over_tensors(tmp_path):
    found = dynamo_statuses(tmp_path, CALLABLES)
    assert ("BRK101", "train.py", 9, "confirmed") in found, found
    assert ("BRK101", "train.py", 24, "confirmed") in found, found
    assert not {f for f in found if f[3] in ("refuted", "predicted")}, found


COMPREHENSIONS = '''\
import torch


@torch.compile(backend="eager")
def keep_positive(rows):
    kept = [r for r in rows if r.sum() > 0]
    return torch.stack(kept)


@torch.compile(backend="eager")
def split_in(x, n_chunks):
    size = int(x.shape[0] / n_chunks)
    return x.split(size)


@torch.compile(backend="eager")
def by_shape(rows, n_parts):
    return [r * 2 for r in rows if r.shape[0] > 1], x_split(rows, n_parts)


def x_split(rows, n_parts):
    return rows.chunk(n_parts)


print(keep_positive(torch.tensor([[1.0, 2.0, 3.0], [-1.0, -2.0, -3.0], [0.5, 0.0, 0.0]])).shape)
print(len(split_in(torch.rand(8), torch.tensor(2))))
print(len(by_shape(torch.rand(4, 3), 2)[0]))
'''


def test_comprehension_filters_and_numbers_given_as_tensors_are_predicted(tmp_path):
    found = rule_lines(static_findings(tmp_path, COMPREHENSIONS))
    assert ("BRK101", 6) in found, found  # `if r.sum() > 0`, r a row of a tensor
    assert ("BRK104", 12) in found, found  # `n_chunks` reads as a number, every call passes a tensor
    assert not {(r, line) for r, line in found if line in (18, 22)}, found  # shapes; an int n_parts


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_comprehension_filters_and_numbers_given_as_tensors(tmp_path):
    found = dynamo_statuses(tmp_path, COMPREHENSIONS)
    assert_dynamo_confirms(found, [("BRK101", "train.py", 6), ("BRK104", "train.py", 12)])


def test_pad_widths_given_by_keyword_are_read_too(tmp_path):
    source = '''\
import torch
import torch.nn.functional as F


@torch.compile
def pad_to(x, lengths):
    longest = lengths.max()
    return F.pad(x, pad=(0, longest - x.shape[-1]), value=0.0)
'''
    found = rule_lines(static_findings(tmp_path, source))
    assert ("BRK108", 8) in found and not {r for r, _ in found if r == "BRK900"}, found


def test_stacking_a_list_built_with_append_gives_a_tensor(tmp_path):
    """`counts = []`, `counts.append(t)`, `torch.stack(counts)`: a tensor, not a number Dynamo folds."""
    found = rule_lines(static_findings(tmp_path, {
        "utils.py": '''\
import torch


def per_class_counts(labels, num_classes):
    counts = []
    for c in range(num_classes):
        counts.append((labels == c).sum())
    return torch.stack(counts)
''',
        "model.py": '''\
import torch

from utils import per_class_counts


@torch.compile
def weigh(logits, labels):
    counts = per_class_counts(labels, 3)
    weights = [1.0 / (c + 1) for c in counts]
    if any(w > 0.5 for w in weights):
        logits = logits * 0.5
    return logits
''',
    }))
    assert ("BRK101", 10) in found, found


def test_data_swapped_for_another_dtype_is_flagged_and_a_same_dtype_swap_is_not(tmp_path):
    """GB0220 (BRK263): `.data =` a half/bfloat16 copy breaks; `.float()` of a float32 tensor is traced."""
    source = '''\
import torch


class Caster(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.rand(4))

    def forward(self, x, p):
        self.w.data = self.w.data.half()
        p.data = p.data.to(dtype=torch.bfloat16)
        self.w.data = self.w.data.float()
        p.data = p.data.to(x.device)
        return x * self.w.float()
'''
    found = {line for rule, line in rule_lines(static_findings(tmp_path, source)) if rule == "BRK263"}
    assert found == {10, 11}, found


COPIES = '''\
import copy

import torch


@torch.compile(backend="eager")
def step(x, cfg):
    opts = copy.deepcopy(cfg)
    defaults = copy.deepcopy({"scale": 2.0, "bias": [0.5]})
    y = x * opts["scale"] + defaults["bias"][0]
    saved = copy.deepcopy(y)
    return saved + 1


with torch.no_grad():
    step(torch.randn(4), {"scale": 3.0})
'''


def test_a_deep_copy_of_a_python_value_is_not_flagged(tmp_path):
    """`copy.deepcopy` of a config dict or a display of constants is traced (2.13, 2.15); of a
    tensor computed in the region it breaks (GB4198)."""
    found = rule_lines(static_findings(tmp_path, COPIES))
    assert ("BRK212", 11) in found, found
    assert not {line for rule, line in found if rule == "BRK212"} - {11}, found


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_only_the_deep_copy_of_a_computed_tensor(tmp_path):
    assert_dynamo_confirms(dynamo_statuses(tmp_path, COPIES), [("BRK212", "train.py", 11)])


CONTAINERS = '''\
from dataclasses import dataclass

import torch
from torch import nn


class Stack(nn.Sequential):
    def forward(self, x):
        for i, layer in enumerate(self):
            x = layer(x)
            if x.isnan().any():
                raise ValueError(f"nan after layer {i}")
        return x


@dataclass
class Output:
    logits: torch.Tensor
    loss: torch.Tensor = None


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = Stack(nn.Linear(4, 4), nn.ReLU())
        self.head = nn.Linear(4, 3)

    def forward(self, x, labels):
        out = Output(self.head(self.body(x)))
        out.loss = nn.functional.cross_entropy(out.logits, labels)
        if out.loss > 100:
            out.loss = out.loss.clamp(max=100)
        return out


model = torch.compile(Classifier(), backend="eager")
model(torch.randn(5, 4), torch.randint(0, 3, (5,)))
'''


def test_submodules_of_a_sequential_subclass_and_attributes_of_a_local_object(tmp_path):
    """`for layer in self` in an nn.Sequential subclass gives modules (their calls tensors);
    `out.loss = F.cross_entropy(...)` on a local object reads back as a tensor."""
    found = rule_lines(static_findings(tmp_path, CONTAINERS))
    assert ("BRK101", 11) in found, found  # x.isnan().any(), x a layer's output
    assert ("BRK101", 31) in found, found  # out.loss > 100


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_sequential_subclass_and_local_object_attributes(tmp_path):
    assert_dynamo_confirms(dynamo_statuses(tmp_path, CONTAINERS),
                           [("BRK101", "train.py", 11), ("BRK101", "train.py", 31)])
