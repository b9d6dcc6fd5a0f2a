"""Compile regions a user's script reaches in ways the index did not see, driven through
`breakscan run` (static pass and Dynamo on the same lines):
- a module-level name bound to `torch.compile` or to `functools.partial(torch.compile, ...)`, used
  as a decorator or applied (`fast = compile_eager(step)`), also as a decorator imported from
  another module of the package; and `from torch import compile as tc`;
- a function passed by name to a compiled function where that is called (module level or inside
  `main()`), when the compiled function calls the parameter: Dynamo traces it in that frame. A
  function passed to a parameter the compiled function only stores is not traced, and not flagged.
"""

from __future__ import annotations

import pytest

from tests.conftest import (
    assert_dynamo_confirms,
    assert_script_confirms,
    assert_script_flags,
    break_statuses,
    requires_torch,
    run_findings,
    write_files,
)

SCRIPT = '''\
import functools

import torch
from torch import compile as tc

compile_eager = functools.partial(torch.compile, backend="eager")


@compile_eager
def step(x):
    if x.sum() > 0:
        return x * 2
    return x


def to_list(x):
    return x.tolist()


def noisy_act(x):
    print("activating")
    return x.relu()


def quiet_act(x):
    print("stored, never called in the graph")
    return x


@compile_eager
def apply_twice(fn, x, keep=None):
    return fn(fn(x)), keep


def main():
    fast = tc(to_list, backend="eager")
    fast(torch.randn(3))
    apply_twice(noisy_act, torch.randn(3), keep=quiet_act)


step(torch.randn(3))
main()
'''
BREAKS = [("BRK101", 11), ("BRK103", 17), ("BRK201", 21)]


def test_compile_wrappers_and_passed_functions_are_regions(tmp_path):
    assert_script_flags(tmp_path, SCRIPT, BREAKS, quiet_lines=[26])


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_breaks_in_wrapped_and_passed_functions(tmp_path):
    assert_script_confirms(tmp_path, SCRIPT, BREAKS)


# The wrapper in a package module, imported with a relative import where it decorates.
PACKAGE = {
    "tools/__init__.py": "",
    "tools/compiling.py": '''\
        import functools

        import torch

        compile_eager = functools.partial(torch.compile, backend="eager")
    ''',
    "tools/losses.py": '''\
        from .compiling import compile_eager


        @compile_eager
        def pick_worst(preds, target):
            losses = [((p - target) ** 2).mean() for p in preds]
            worst = max(range(len(losses)), key=lambda i: losses[i])
            return preds[worst]
    ''',
    "train.py": '''\
        import torch

        from tools.losses import pick_worst

        pick_worst([torch.randn(4), torch.randn(4)], torch.zeros(4))
    ''',
}


@pytest.mark.dynamic
@requires_torch
def test_dynamo_confirms_a_break_under_an_imported_compile_wrapper(tmp_path):
    write_files(tmp_path, PACKAGE)
    found = break_statuses(run_findings(tmp_path, "train.py"))
    assert_dynamo_confirms(found, [("BRK245", "losses.py", 7)])
