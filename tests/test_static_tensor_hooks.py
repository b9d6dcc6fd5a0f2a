"""BRK244: a gradient hook registered on a tensor computed in the region that mutates outer state
(GB0067), in a user's script through `breakscan run` (static pass and Dynamo on the same lines):
a lambda appending to a module list, a nested def setting an attribute, a module-level def storing
into a dict, a helper registering the hook on the tensor its caller passes (`watch(x * 2)`).
Not matched and traced: the same lambda on an input of the region, a pure hook.
"""

from __future__ import annotations

import pytest

from tests.conftest import assert_script_confirms, assert_script_flags, requires_torch

SCRIPT = '''\
import torch

grads = []
store = {}


class Box:
    pass


box = Box()


def record(g):
    store["last"] = g


@torch.compile(backend="eager")
def f_append(x):
    y = x * 2
    y.register_hook(lambda g: grads.append(g))
    return y.sum()


@torch.compile(backend="eager")
def f_nested(x):
    y = x * 2

    def hook(g):
        box.g = g

    y.register_hook(hook)
    return y.sum()


@torch.compile(backend="eager")
def f_module_def(x):
    y = x.exp()
    y.register_hook(record)
    return y.sum()


@torch.compile(backend="eager")
def f_pure_and_input(x):
    x.register_hook(lambda g: grads.append(g))
    y = x * 3
    y.register_hook(lambda g: g * 2)
    return y.sum()


def watch(t):
    t.register_hook(lambda g: grads.append(g.norm()))
    return t


@torch.compile(backend="eager")
def f_helper(x):
    h = watch(x * 2)
    return h.sum()


for fn in (f_append, f_nested, f_module_def, f_pure_and_input, f_helper):
    fn(torch.rand(3, requires_grad=True)).backward()
'''

EXPECTED = [("BRK244", 15), ("BRK244", 21), ("BRK244", 30), ("BRK244", 52)]


def test_hooks_that_mutate_outer_state_are_flagged(tmp_path):
    assert_script_flags(tmp_path, SCRIPT, EXPECTED, quiet_lines=(44, 46))


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_the_hook_side_effects(tmp_path):
    assert_script_confirms(tmp_path, SCRIPT, EXPECTED)
