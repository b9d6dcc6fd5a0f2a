"""Placement of a break reached through a tensor subclass's `__torch_function__`: the subclass
hook (`super().__torch_function__(func, ...)`) passes every torch call on, so the break belongs to
the user line that made the call (`runner.primary_frame`). Dynamo's own traceback used to fold
the hook into torch's `__torch_function__` of the same name; once the dynamic pass keeps such
frames (`probe.keep_nested_frames`), the hook is the innermost project frame and is passed over
(MONAI's `MetaTensor` placed its breaks at the hook's line without this)."""

from __future__ import annotations

import pytest

from tests.conftest import assert_script_confirms, requires_torch

SCRIPT = '''\
import torch


class Tagged(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = super().__torch_function__(func, types, args, kwargs)
        return out


def keep_positive(x):
    idx = torch.nonzero(x > 0)
    return x[idx]


def doubled(x):
    return x * 2


@torch.compile(backend="eager")
def step(x):
    y = doubled(x)
    return keep_positive(y)


step(torch.randn(6).as_subclass(Tagged))
'''


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_break_inside_a_subclass_hook_is_placed_at_the_call(tmp_path):
    assert_script_confirms(tmp_path, SCRIPT, [("BRK105", 13)])
