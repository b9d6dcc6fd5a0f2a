"""A property of a module-level instance read in a compiled function (`sched.init_sigma` with
`sched = Scheduler()` at module level, in the compiled function's module or imported from
another): Dynamo runs the getter where it is read, so its breaks are the region's
(regions._expand_properties, FunctionInfo.global_reads). Before, only `self.x` and `self.sub.x`
reads joined the region: the getter's branch was observed by Dynamo and not predicted. Checked
with `breakscan run -m` on 2.13 and 2.15."""

from __future__ import annotations

import pytest

from tests.conftest import assert_package_confirms, requires_torch, static_located

FILES = {
    "kit/__init__.py": "",
    "kit/sched.py": '''
        import torch


        class Scheduler:
            def __init__(self, n=50):
                self.sigmas = torch.linspace(1.0, 0.01, n)

            @property
            def init_sigma(self):
                s = self.sigmas[0]
                if s > 0.5:
                    return s * 2
                return s

            @property
            def last_sigma(self):
                return self.sigmas[-1].item()

            @property
            def steps(self):
                return 50


        shared = Scheduler()
        ''',
    "kit/run.py": '''
        import torch

        from .sched import Scheduler, shared

        sched = Scheduler()


        @torch.compile(backend="eager")
        def start(x):
            return x * sched.init_sigma


        @torch.compile(backend="eager")
        def finish(x):
            return x * shared.last_sigma / shared.steps


        def main():
            x = torch.randn(4)
            start(x)
            finish(x)


        if __name__ == "__main__":
            main()
        ''',
}

EXPECTED = {("BRK101", "sched.py", 12), ("BRK102", "sched.py", 18)}


def test_module_level_instance_properties_join_the_region(tmp_path):
    assert EXPECTED <= static_located(tmp_path, FILES, regions="explicit")


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms(tmp_path):
    assert_package_confirms(tmp_path, FILES, "kit.run", EXPECTED)
