"""Keys that return tensors: `max`/`min` with `key=` (BRK245, GB0193 on 2.13, GB5687 on 2.15)
and `sorted` of indices or dict keys by a tensor key (BRK230, GB0207), in a user's script through
`breakscan run` (static pass and Dynamo on the same lines). The parameter of a `key=` lambda is
bound to an element of the sequence (`range(n)`: a Python int; a list of tensors: a tensor), and
`d.get` of a dict of tensors returns one. Keys returning Python values are traced and not flagged.
"""

from __future__ import annotations

import pytest

from tests.conftest import assert_script_confirms, assert_script_flags, requires_torch

SCRIPT = '''\
import torch
import torch.nn.functional as F


@torch.compile(backend="eager")
def hardest(preds, target):
    losses = [F.mse_loss(p, target) for p in preds]
    worst = max(range(len(losses)), key=lambda i: losses[i])
    return preds[worst]


@torch.compile(backend="eager")
def best_metric(x):
    metrics = {"l1": x.abs().mean(), "l2": x.pow(2).mean()}
    name = min(metrics, key=metrics.get)
    return metrics[name]


@torch.compile(backend="eager")
def best_pair(x):
    metrics = {"l1": x.abs().mean(), "l2": x.pow(2).mean()}
    return max(metrics.items(), key=lambda kv: kv[1])[1]


@torch.compile(backend="eager")
def order_heads(x):
    scores = [x[0].sum(), x[1].sum(), x[2].sum()]
    order = sorted(range(3), key=lambda i: scores[i])
    return x[order[0]]


@torch.compile(backend="eager")
def python_keys(x, names):
    sizes = [3, 1, 2]
    longest = max(names, key=len)
    biggest = max(range(3), key=lambda i: sizes[i])
    ranked = sorted(range(3), key=lambda i: sizes[i])
    return x * biggest + ranked[0] + len(longest)


hardest([torch.randn(3), torch.randn(3)], torch.randn(3))
best_metric(torch.randn(4))
best_pair(torch.randn(4))
order_heads(torch.randn(3, 2))
python_keys(torch.randn(2), ["a", "bb"])
'''
BREAKS = [("BRK245", 8), ("BRK245", 15), ("BRK245", 22), ("BRK230", 28)]


def test_max_min_and_sorted_with_tensor_keys_are_flagged(tmp_path):
    assert_script_flags(tmp_path, SCRIPT, BREAKS, quiet_lines=range(32, 38))


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_tensor_keys(tmp_path):
    assert_script_confirms(tmp_path, SCRIPT, BREAKS)
