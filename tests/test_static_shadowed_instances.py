"""A local that shadows a module-level instance (`sched = Constant()` in a compiled function,
with `sched = Scheduler()` at module level) is not the instance: Python binds a name the def
stores for its whole body, so `sched.init_sigma` there runs no `Scheduler` getter
(index._unshadowed). Before, only a positional parameter of the same name was told apart, and
the getter's branch was predicted for each function below (refuted by Dynamo: it runs none of
them). The kinds of binding: an assignment, a `for` target, a keyword-only parameter. Checked
with `breakscan run -m` on 2.13 and 2.15."""

from __future__ import annotations

import pytest

from tests.conftest import assert_package_confirms, requires_torch, static_located
from tests.test_static_instance_properties import FILES as INSTANCE_FILES

# The Scheduler of test_static_instance_properties (its `init_sigma` getter branches on line 12),
# and a class whose `init_sigma` is a plain number.
SCHED = INSTANCE_FILES["kit/sched.py"] + '''

        class Constant:
            init_sigma = 2.0
        '''

SHADOWED = {
    "kit/__init__.py": "",
    "kit/sched.py": SCHED,
    "kit/run.py": '''
        import torch

        from .sched import Constant, Scheduler

        sched = Scheduler()


        @torch.compile(backend="eager")
        def assigned(x):
            sched = Constant()
            return x * sched.init_sigma


        @torch.compile(backend="eager")
        def looped(x):
            for sched in (Constant(), Constant()):
                x = x * sched.init_sigma
            return x


        @torch.compile(backend="eager")
        def keyword(x, *, sched=Constant()):
            return x * sched.init_sigma


        def main():
            x = torch.randn(4)
            assigned(x)
            looped(x)
            keyword(x)


        if __name__ == "__main__":
            main()
        ''',
}

# The same module with one function reading the module-level instance: the getter's branch is
# its break, so the shadowing above did not hide the instance from the rest of the module.
UNSHADOWED = {**SHADOWED, "kit/run.py": SHADOWED["kit/run.py"].replace(
    '''        def main():''', '''        @torch.compile(backend="eager")
        def start(x):
            return x * sched.init_sigma


        def main():''').replace('''            keyword(x)''', '''            keyword(x)
            start(x)''')}

BRANCH = ("BRK101", "sched.py", 12)


def test_a_local_of_the_same_name_is_not_the_instance(tmp_path):
    assert BRANCH not in static_located(tmp_path, SHADOWED, regions="explicit")


def test_the_instance_read_elsewhere_in_the_module_still_joins(tmp_path):
    assert BRANCH in static_located(tmp_path, UNSHADOWED, regions="explicit")


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_no_getter_runs(tmp_path):
    assert_package_confirms(tmp_path, SHADOWED, "kit.run", set())


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_the_instance_read(tmp_path):
    assert_package_confirms(tmp_path, UNSHADOWED, "kit.run", {BRANCH})
