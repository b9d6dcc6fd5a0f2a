"""Callables `breakscan_examples()` yields that are bound methods of local instances root regions.

A diffusers-style sampling step: `scheduler = DDPMScheduler(...)` then `yield scheduler.step,
(...)`, `model = Net().eval()` then `yield model.forward, (...)`, and a local instance of a plain
class with `__call__` yielded itself. The dynamic pass always ran these; the static pass now
roots the method's region too (with `--regions explicit`, only these roots count).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import break_statuses, cli_findings, located, requires_torch, write_files

PROJECT = {
    "sampler/__init__.py": "",
    "sampler/scheduler.py": """\
        import torch


        class DDPMScheduler:
            def __init__(self, num_train_timesteps=1000):
                self.betas = torch.linspace(1e-4, 0.02, num_train_timesteps)

            @classmethod
            def from_config(cls, config):
                return cls(config["steps"])

            def step(self, model_output, timestep, sample):
                t = timestep.item()
                return sample - self.betas[t] * model_output


        class Guidance:
            def __call__(self, uncond, cond):
                print("guiding")
                return uncond + 7.5 * (cond - uncond)
    """,
    "sampler/net.py": """\
        import torch
        from torch import nn


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(4, 4)

            def forward(self, x):
                print("net")
                return self.lin(x)
    """,
    "sampler/examples.py": """\
        import torch

        from .net import Net
        from .scheduler import DDPMScheduler, Guidance


        def breakscan_examples():
            scheduler = DDPMScheduler(num_train_timesteps=10)
            restored = DDPMScheduler.from_config({"steps": 10})
            model = Net().eval()
            guide = Guidance()
            x = torch.randn(2, 4)
            yield scheduler.step, (x, torch.tensor(3), x)
            yield restored.step, (x, torch.tensor(2), x)
            yield model.forward, (x,)
            yield guide, (x, x)
    """,
}
PREDICTED = {
    ("BRK102", "scheduler.py", 13),  # timestep.item() in DDPMScheduler.step
    ("BRK201", "scheduler.py", 19),  # print in Guidance.__call__
    ("BRK201", "net.py", 11),  # print in Net.forward
}


def test_bound_methods_of_local_instances_root_their_regions(tmp_path: Path) -> None:
    write_files(tmp_path, PROJECT)
    findings = cli_findings(tmp_path, "sampler", "--no-dynamic", "--no-cache", "--regions", "explicit")
    assert located(findings) == PREDICTED
    step = next(f for f in findings if f["rule_id"] == "BRK102")
    assert step["chain"] == ["DDPMScheduler.step"]


@pytest.mark.dynamic
@requires_torch
def test_dynamo_confirms_the_bound_method_regions(tmp_path: Path) -> None:
    write_files(tmp_path, PROJECT)
    findings = cli_findings(tmp_path, "sampler", "--no-cache", "--regions", "explicit", "--backend", "eager")
    assert break_statuses(findings) == {(*p, "confirmed") for p in PREDICTED}
