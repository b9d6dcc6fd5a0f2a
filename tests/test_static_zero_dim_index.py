"""BRK260 on 0-dim indices whose rank the code fixes (index_ranks.py), in a user's script through
`breakscan run` (static pass and Dynamo on the same lines): the variable of a `for` over
`mask.nonzero().flatten()` or `torch.arange(n)`, `order[0]` with `order = torch.randperm(n)`, an
element of one-argument `torch.where`, in loads, stores and augmented stores. Not matched, and
traced or of unknown rank: a slice index (`x[order[:2]]`), a `range` loop variable, a tensor used
as a dict key, and `idx[0]` / `for r in rows` over parameters whose rank the code does not say.
"""

from __future__ import annotations

import pytest

from tests.conftest import assert_script_confirms, assert_script_flags, requires_torch

SCRIPT = '''\
import torch


@torch.compile(backend="eager")
def scatter_rows(x, mask):
    out = torch.zeros_like(x)
    for i in mask.nonzero().flatten():
        out[i] = x[i] * 2
    return out


@torch.compile(backend="eager")
def pick(x):
    order = torch.randperm(x.shape[0])
    j = order[0]
    y = x[j]
    x[order[1]] = 0
    x[order[:2]] = 1
    return y


@torch.compile(backend="eager")
def bump(x, n):
    for k in torch.arange(n):
        x[k] += 1
    return x


@torch.compile(backend="eager")
def first_positive(x):
    pos = torch.where(x > 0)[0]
    return x[pos[0]]


@torch.compile(backend="eager")
def unknown_ranks(x, rows):
    for r in rows:
        x[r] = 0
    for r in range(3):
        x[r] = 1
    seen = {}
    for t in torch.arange(3):
        seen[t] = 1
    return x, seen


scatter_rows(torch.rand(4, 2), torch.tensor([True, False, True, False]))
pick(torch.rand(5, 2))
bump(torch.rand(4), 3)
first_positive(torch.tensor([-1.0, 2.0, 3.0]))
unknown_ranks(torch.rand(5, 2), torch.tensor([[0, 1]]))
'''

ZERO_DIM = [8, 16, 17, 25, 32]


def test_zero_dim_indices_of_known_rank_are_flagged(tmp_path):
    assert_script_flags(tmp_path, SCRIPT, [("BRK260", line) for line in ZERO_DIM], quiet_lines=(18, 38, 40, 43))


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_the_zero_dim_indices(tmp_path):
    assert_script_confirms(tmp_path, SCRIPT, [("BRK260", line) for line in ZERO_DIM] + [("BRK105", 7), ("BRK105", 31)])


ATTRIBUTES = '''\
import torch


class Scheduler:
    def __init__(self, steps=1024):
        self.sqrt_one_minus = torch.sqrt(torch.linspace(0.01, 0.99, steps))
        self.offsets = torch.arange(4)
        self.grid = torch.zeros(2, 2, dtype=torch.long)

    def set_timesteps(self):
        self.timesteps = torch.tensor([1008, 512], dtype=torch.long)

    @property
    def init_noise_sigma(self):
        return self.sqrt_one_minus[self.timesteps[0]]

    def start(self, x):
        shift = self.sqrt_one_minus[self.offsets[1]]
        row = self.sqrt_one_minus[self.grid[0]]
        return self.init_noise_sigma * x + shift + row.sum()


sched = Scheduler()
sched.set_timesteps()
start = torch.compile(sched.start, backend="eager")
start(torch.ones(2))
start(torch.ones(2))
'''


def test_an_element_of_a_one_dim_attribute_is_a_zero_dim_index(tmp_path):
    # `self.grid[0]` is a row of a 2-dim tensor: 1-dim, traced
    assert_script_flags(tmp_path, ATTRIBUTES, [("BRK260", 15), ("BRK260", 18)], quiet_lines=(19,))


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_the_attribute_indices(tmp_path):
    assert_script_confirms(tmp_path, ATTRIBUTES, [("BRK260", 15), ("BRK260", 18)])
