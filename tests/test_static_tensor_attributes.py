"""Instance attributes bound in `__init__` to a tensor factory, also through conversions
(`torch.from_numpy(a).to(device).long()`), are tensors in the methods a region reaches: a Python
branch on an element of one is data-dependent (GB0170), confirmed by Dynamo 2.13 through the CLI.
An attribute bound to a Python list stays a Python value (no prediction, no break)."""

from __future__ import annotations

from tests.conftest import break_statuses, cli_findings, requires_torch, write_files

# A user's sampler package: the schedule lives on the instance, the helper module is imported relatively.
PACKAGE = {
    "sampler/__init__.py": "",
    "sampler/tables.py": '''
        import numpy as np


        def descending(n):
            return np.arange(0, n)[::-1].copy().astype(np.int64)
        ''',
    "sampler/scheduler.py": '''
        import torch

        from .tables import descending


        class Scheduler:
            def __init__(self, steps=10):
                self.alphas = torch.linspace(1, 0, 100)
                self.timesteps = torch.from_numpy(descending(steps)).to(torch.long)
                self.order = list(range(steps))
                self.step_index = 2

            def step(self, out, sample):
                t = self.timesteps[self.step_index]
                alpha = self.alphas[t] if t >= 0 else self.alphas[0]
                k = self.order[self.step_index]
                scale = 2.0 if k >= 0 else 1.0
                return sample * alpha * scale + out


        def breakscan_examples():
            scheduler = Scheduler()
            yield scheduler.step, (torch.randn(2), torch.randn(2))
        ''',
}


@requires_torch
def test_factory_attributes_through_conversions_are_tensors(tmp_path):
    write_files(tmp_path, PACKAGE)
    found = break_statuses(cli_findings(tmp_path, "check", "sampler", "--show-refuted", cache=tmp_path / "cache"))
    assert ("BRK101", "scheduler.py", 16, "confirmed") in found  # `... if t >= 0 else ...` on a tensor element
    assert not {f for f in found if f[1] == "scheduler.py" and f[2] == 18}  # k: an element of a Python list
    assert not {f for f in found if f[3] in ("refuted", "observed")}
