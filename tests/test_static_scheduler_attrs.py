"""Two facts about a class's own attributes, from diffusers' scheduler pattern, on a user package
with relative imports driven through the CLI:

- `self.betas = betas_for(n)` with the module's helper returning `torch.tensor(...)` is a tensor,
  not a submodule (the index records any call's result as one): `self.betas[t]` with a 0-dim
  tensor `t` is traced, where BRK261 had flagged it as a module list indexed by a tensor.
- `step(self, out, timestep: int, sample)` on a class holding the tensor `self.timesteps`,
  compiled with no visible call: callers pass its elements (`for t in sched.timesteps`), 0-dim
  tensors whatever the annotation says, so `if prev_t >= 0` on one breaks (BRK101, GB0170).
  A number parameter with no such attribute (`order: int`) keeps its annotation.
- `self.history[-1] = timestep` then `self.tau(self.history[-1])`: an element of a `self` list
  stored at an integer index is read back at that index as what was stored, in the same
  function, so the lambda `self.tau` is checked with a tensor (`t >= 20`, BRK101 on its line);
  from the dev miss of SASolver's `timestep_list`.
"""

from __future__ import annotations

import pytest

from tests.conftest import break_statuses, cli_findings, requires_torch, write_files

PACKAGE = {
    "noisekit/__init__.py": "",
    "noisekit/sched.py": '''
        import math

        import torch


        def betas_for(n):
            betas = []
            for i in range(n):
                betas.append(min(1 - math.cos(i / n), 0.999))
            return torch.tensor(betas, dtype=torch.float32)


        class Sched:
            def __init__(self, n=100, order=2):
                self.betas = betas_for(n)
                self.alphas_cumprod = torch.cumprod(1.0 - self.betas, dim=0)
                self.one = torch.tensor(1.0)
                self.timesteps = torch.arange(n - 1, -1, -10)
                self.order = order
                self.history = [None, None]
                self.tau = lambda t: 1 if t >= 20 else 0

            def step(self, out, timestep: int, sample, order: int = 2):
                prev_t = timestep - 1
                alpha_prev = self.alphas_cumprod[prev_t] if prev_t >= 0 else self.one
                beta = self.betas[timestep]
                if order > 1:
                    out = out * 0.5
                return sample * alpha_prev - beta * out

            def multistep(self, out, timestep: int, sample):
                early = self.tau(self.history[-1]) if self.history[-1] is not None else 0
                self.history[0] = self.history[1]
                self.history[-1] = timestep
                return sample * self.tau(self.history[-1]) + out * early
        ''',
    "noisekit/examples.py": '''
        import torch

        from .sched import Sched


        def breakscan_examples():
            sched = Sched()
            yield Sched.step, (sched, torch.randn(4), sched.timesteps[0], torch.randn(4)), {}
            yield Sched.multistep, (sched, torch.randn(4), sched.timesteps[0], torch.randn(4)), {}
        ''',
}
EXPECTED = {("BRK101", "sched.py", 26), ("BRK101", "sched.py", 22)}


def test_helper_tensor_attribute_and_plural_tensor_parameter(tmp_path):
    write_files(tmp_path, PACKAGE)
    found = break_statuses(cli_findings(tmp_path, "check", "noisekit", "--no-dynamic", "--no-cache"))
    assert {f[:3] for f in found} == EXPECTED


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_the_scheduler_break_and_nothing_else(tmp_path):
    write_files(tmp_path, PACKAGE)
    found = break_statuses(cli_findings(tmp_path, "check", "noisekit", "--show-refuted", cache=tmp_path / "cache"))
    assert found == {(*f, "confirmed") for f in EXPECTED}
