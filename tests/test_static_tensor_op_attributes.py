"""An attribute `__init__` sets from a torch op (`self.sqrt_ac = torch.sqrt(ac)`, `torch.cumprod`,
`torch.cat`, ...) is a tensor, not a submodule: indexing it with a tensor is no Python
sequence's `__index__` (BRK261 was a false alarm, refuted twice by Dynamo on a new diffusers dev
case, ConsistencyDecoderScheduler.step). Checked with `breakscan run` on 2.13 and 2.15."""

from __future__ import annotations

import pytest

from tests.conftest import assert_script_confirms, requires_torch, rule_lines, static_findings

SOURCE = '''
    import torch


    class Scheduler:
        def __init__(self, steps=1024):
            alphas_cumprod = torch.cumprod(1.0 - torch.linspace(1e-4, 0.02, steps), dim=0)
            self.sqrt_alphas_cumprod = torch.sqrt(alphas_cumprod)
            self.timesteps = torch.tensor([1008, 512])

        def step(self, out, timestep, sample):
            idx = (self.timesteps == timestep).int().argmax()
            return self.sqrt_alphas_cumprod[self.timesteps[idx]] * sample + out


    def main():
        sched = Scheduler()
        step = torch.compile(sched.step, backend="eager")
        x = torch.randn(2)
        for t in sched.timesteps:
            x = step(torch.randn(2), t, x)


    if __name__ == "__main__":
        main()
    '''


def test_a_torch_op_attribute_indexed_by_a_tensor_is_no_sequence(tmp_path):
    assert ("BRK261", 13) not in rule_lines(static_findings(tmp_path, {"sched.py": SOURCE}))


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_agrees(tmp_path):
    assert_script_confirms(tmp_path, SOURCE.replace("sched.py", "train.py"), set())
