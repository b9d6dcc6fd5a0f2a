"""The two paths of an `if` meet: a name that is a tensor on one path and a Python value on the
other is a tensor after the `if` (as for `a if c else b`), unless the tensor's path leaves the
function first. Each test writes a user's package and runs the CLI; the first runs real Dynamo.

Measured on torch 2.13 (backend "eager"): a scheduler's `step` whose `prev_timestep` is an element
of a tensor attribute on one path and the `timestep: int` argument on the other breaks on
`prev_timestep >= 0` (GB0170) when the tensor path runs (diffusers' LCM scheduler has this form).
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import break_statuses, cli_findings, located, requires_torch, write_files

SCHEDULER = '''
    import torch


    class Scheduler:
        def __init__(self, steps=10):
            self.alphas_cumprod = torch.linspace(1.0, 0.1, 100)
            self.final_alpha = torch.tensor(1.0)
            self.timesteps = torch.arange(99, -1, -100 // steps)
            self._step_index = None

        @property
        def step_index(self) -> int | None:
            return self._step_index

        def step(self, model_output, timestep: int, sample):
            if self.step_index is None:
                self._step_index = 0
            prev_step_index = self.step_index + 1
            if prev_step_index < len(self.timesteps):
                prev_timestep = self.timesteps[prev_step_index]
            else:
                prev_timestep = timestep
            alpha_prev = self.alphas_cumprod[prev_timestep] if prev_timestep >= 0 else self.final_alpha
            return sample * alpha_prev + model_output
'''
RUN = '''
    import torch

    from .scheduler import Scheduler


    def breakscan_examples():
        scheduler = Scheduler()
        yield Scheduler.step, (scheduler, torch.randn(4), scheduler.timesteps[0], torch.randn(4))
'''


@requires_torch
def test_a_tensor_on_one_path_of_an_if_is_a_tensor_after_it_and_dynamo_confirms(tmp_path: Path) -> None:
    write_files(tmp_path, {"sched/__init__.py": "", "sched/scheduler.py": SCHEDULER, "sched/run.py": RUN})
    found = break_statuses(cli_findings(tmp_path, "sched", "--show-refuted", cache=tmp_path / ".cache"))
    assert found == {("BRK101", "scheduler.py", 24, "confirmed")}


def test_a_tensor_path_that_returns_does_not_reach_the_code_after_the_if(tmp_path: Path) -> None:
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/steps.py": '''
        import torch


        @torch.compile
        def step(x, flag: bool):
            n = 5
            if flag:
                n = torch.ones(1)
                return x * n
            if n > 3:  # n is 5 here on every path that reaches it
                x = x + 1
            m = 2
            if flag:
                pass
            else:
                m = torch.ones(1)
            if m > 1:  # a tensor when the else ran
                x = x - 1
            return x
    '''})
    assert located(cli_findings(tmp_path, "pkg", "--no-dynamic", "--no-cache")) == {("BRK101", "steps.py", 18)}
