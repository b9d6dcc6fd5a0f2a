"""Optimizer calls inside a compiled training step, as users write them: `zero_grad()` (torch wraps
it in `torch._disable_dynamo`: GB0008, BRK256) and `step()` (SGD/Adam/AdamW... call
`torch._dynamo.graph_break()` around the update: GB0025, BRK257), on `self.optimizer` built with
`torch.optim.*` or on a name that reads as an optimizer. `model.zero_grad()` and a diffusers-style
`self.scheduler.step(...)` are not optimizer calls. Confirmed by Dynamo 2.13 through the CLI."""

from __future__ import annotations

from tests.conftest import break_statuses, cli_findings, requires_torch, write_files

PACKAGE = {
    "trainer/__init__.py": "",
    "trainer/loop.py": '''
        import torch
        import torch.nn.functional as F
        from torch import nn


        class Trainer:
            def __init__(self, model, lr=1e-3):
                self.model = model
                self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr)

            def train_step(self, x, y):
                loss = F.mse_loss(self.model(x), y)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                return loss.detach()


        def gan_step(gen, disc, opt_g, z):
            fake = gen(z)
            score = disc(fake).mean()
            gen.zero_grad()
            opt_g.step()
            return score * 2


        def breakscan_examples():
            trainer = Trainer(nn.Linear(4, 4))
            yield trainer.train_step, (torch.randn(2, 4), torch.randn(2, 4))
            gen, disc = nn.Linear(3, 4), nn.Linear(4, 1)
            disc(gen(torch.randn(2, 3))).sum().backward()
            yield gan_step, (gen, disc, torch.optim.SGD(gen.parameters(), lr=0.1), torch.randn(2, 3))
        ''',
}


@requires_torch
def test_optimizer_calls_in_a_compiled_step_are_confirmed(tmp_path):
    write_files(tmp_path, PACKAGE)
    found = break_statuses(cli_findings(tmp_path, "check", "trainer", "--show-refuted", cache=tmp_path / "cache"))
    assert ("BRK256", "loop.py", 14, "confirmed") in found  # self.optimizer.zero_grad()
    assert ("BRK257", "loop.py", 16, "confirmed") in found  # self.optimizer.step()
    assert ("BRK257", "loop.py", 24, "confirmed") in found  # opt_g.step(), a parameter named as one
    assert not {f for f in found if f[2] == 23}  # gen.zero_grad(): nn.Module's, traced
    assert not {f for f in found if f[3] in ("refuted", "observed")}, found


def test_schedulers_and_modules_are_not_optimizers(tmp_path):
    write_files(tmp_path, {"pipe.py": '''
        import torch
        from torch import nn


        class Pipeline(nn.Module):
            def __init__(self, scheduler):
                super().__init__()
                self.unet = nn.Linear(4, 4)
                self.scheduler = scheduler
                self.options = {"steps": 2}

            def forward(self, latents):
                for t in range(2):
                    noise = self.unet(latents)
                    latents = self.scheduler.step(noise, t, latents)
                self.unet.zero_grad()
                return latents
        '''})
    found = {(f["rule_id"], f["line"]) for f in cli_findings(tmp_path, "--no-dynamic", "pipe.py")}
    assert not {f for f in found if f[0] in ("BRK256", "BRK257")}, found
