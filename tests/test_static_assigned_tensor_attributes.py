"""Instance attributes that every method assigns only tensors are tensors in the methods a region
reaches: `self.sigmas = sigmas.to("cpu")` of a local tensor in `__init__` (the local followed in
source order: a NumPy array first, `torch.from_numpy` of it next, then arithmetic on it) and `self.sigmas = torch.cat(...)`
in `set_timesteps`. A chained comparison on an element of one is data-dependent (GB0170),
confirmed by Dynamo 2.13 through the CLI. An attribute that some method assigns a Python list
stays a Python value (no prediction, no break)."""

from __future__ import annotations

from tests.conftest import break_statuses, cli_findings, requires_torch, write_files

# A user's sampler package in the style of diffusion schedulers: the schedule is rebuilt by
# `set_timesteps`, the helper module is imported relatively.
PACKAGE = {
    "sampler/__init__.py": "",
    "sampler/shift.py": '''
        def shifted(x, shift):
            return shift * x / (1 + (shift - 1) * x)
        ''',
    "sampler/heun.py": '''
        import numpy as np
        import torch

        from .shift import shifted


        class HeunSampler:
            def __init__(self, train_steps=100, shift=1.0):
                timesteps = np.linspace(1, train_steps, train_steps, dtype=np.float32)[::-1].copy()
                timesteps = torch.from_numpy(timesteps).to(dtype=torch.float32)
                sigmas = timesteps / train_steps
                sigmas = shift * sigmas / (1 + (shift - 1) * sigmas)
                self.sigmas = sigmas.to("cpu")
                self.history = None
                self.step_index = 0

            def set_timesteps(self, steps):
                sigmas = torch.linspace(1.0, 0.0, steps)
                sigmas = torch.cat([sigmas, torch.zeros(1)])
                self.sigmas = torch.cat([sigmas[:1], sigmas[1:-1].repeat_interleave(2), sigmas[-1:]])
                self.history = [float(s) for s in range(1, steps + 1)]

            def step(self, out, sample, s_tmin=0.0, s_tmax=float("inf"), s_churn=0.0):
                sigma = self.sigmas[self.step_index]
                gamma = min(s_churn / (len(self.sigmas) - 1), 2**0.5 - 1) if s_tmin <= sigma <= s_tmax else 0.0
                weight = self.history[self.step_index] if self.history[self.step_index] > 0 else 1.0
                return shifted(sample + (gamma + 1) * sigma * out * weight, 1.0)


        def breakscan_examples():
            sampler = HeunSampler()
            sampler.set_timesteps(10)
            yield HeunSampler.step, (sampler, torch.randn(2), torch.randn(2))
        ''',
}


@requires_torch
def test_attributes_assigned_tensors_in_any_method_are_tensors(tmp_path):
    write_files(tmp_path, PACKAGE)
    found = break_statuses(cli_findings(tmp_path, "check", "sampler", "--show-refuted", cache=tmp_path / "cache"))
    assert ("BRK101", "heun.py", 26, "confirmed") in found  # `... if s_tmin <= sigma <= s_tmax else ...`
    assert not {f for f in found if f[1] == "heun.py" and f[2] == 27}  # history: a Python list
    assert not {f for f in found if f[3] in ("refuted", "observed")}
