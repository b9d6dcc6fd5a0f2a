"""The sixteenth session's mechanisms across a package's modules, as a user runs them: a
`Denoiser` module (`model.py`, which compiles nothing) stores a lambda on `self` and reads a
property of its `Scheduler` attribute; `sample.py` compiles the model and the scheduler's bound
`step` inside `main()`. Found by the session's user check (`breakscan diffkit` predicted
nothing): the lambda sat in an `__init__` that phase B elided (no word of the kept text names
it), the 1-dim store was a method chain (`torch.linspace(...).long()`), and the bound method's
compiled name lived in another module. Checked with `breakscan run -m diffkit.sample` against
Dynamo on 2.13 and 2.15."""

from __future__ import annotations

import pytest

from tests.conftest import assert_package_confirms, requires_torch, static_located

PACKAGE = {
    "diffkit/__init__.py": "",
    "diffkit/schedule.py": '''
        import torch


        class Scheduler:
            def __init__(self, num_steps=10, train_steps=1000):
                betas = torch.linspace(1e-4, 0.02, train_steps)
                self.alphas_cumprod = torch.cumprod(1.0 - betas, dim=0)
                self.timesteps = torch.linspace(train_steps - 1, 0, num_steps).long()

            @property
            def init_sigma(self):
                return (1 - self.alphas_cumprod[self.timesteps[0]]).sqrt()

            def step(self, eps, t: int, x):
                prev_t = t - 100
                a_t = self.alphas_cumprod[t]
                a_prev = self.alphas_cumprod[prev_t] if prev_t >= 0 else torch.tensor(1.0)
                x0 = (x - (1 - a_t).sqrt() * eps) / a_t.sqrt()
                return a_prev.sqrt() * x0 + (1 - a_prev).sqrt() * eps
        ''',
    "diffkit/model.py": '''
        import torch
        from torch import nn

        from .schedule import Scheduler


        class Denoiser(nn.Module):
            def __init__(self, dim=8, act=None):
                super().__init__()
                self.inp = nn.Linear(dim, dim)
                self.out = nn.Linear(dim, dim)
                self.scheduler = Scheduler()
                self.act = act or (lambda h: h * torch.sigmoid(h) if h.abs().max() < 10 else h.clamp(-10, 10))

            def forward(self, x):
                h = self.act(self.inp(x)) * self.scheduler.init_sigma
                return self.out(h)
        ''',
    "diffkit/sample.py": '''
        import torch

        from .model import Denoiser
        from .schedule import Scheduler


        def main():
            torch.manual_seed(0)
            model = torch.compile(Denoiser(), backend="eager")
            sched = Scheduler()
            step = torch.compile(sched.step, backend="eager")
            x = torch.randn(4, 8)
            with torch.no_grad():
                for t in sched.timesteps[:3]:
                    x = step(model(x), t, x)


        if __name__ == "__main__":
            main()
        ''',
}

EXPECTED = {("BRK101", "model.py", 14), ("BRK260", "schedule.py", 13), ("BRK101", "schedule.py", 18)}


def test_the_package_predictions(tmp_path):
    assert static_located(tmp_path, PACKAGE) == EXPECTED


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_agrees(tmp_path):
    assert_package_confirms(tmp_path, PACKAGE, "diffkit.sample", EXPECTED)
