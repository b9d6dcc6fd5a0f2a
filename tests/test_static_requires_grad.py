"""`requires_grad_(False)` on a tensor made in the compiled region without grad is a no-op Dynamo
traces; on an input or parameter that requires grad, and `requires_grad_()` on anything, it breaks.

Measured on torch 2.13 (backend "eager"): `torch.randn_like(z).requires_grad_(False)` and
`z.detach().requires_grad_(False)` give no graph break; `x.requires_grad_(False)` on an input
that requires grad and `w.requires_grad_(False)` on a parameter break (`Unsupported
Tensor.requires_grad_() call`, GB0125); `torch.zeros_like(z).requires_grad_()` used in the output
breaks (`requires_grad_() intermediate leaked as output`, GB8985). A fresh tensor passed through
methods that take no tensor's values (`torch.tensor(1).fill_(1.0).type(t).to(device)`, MONAI's
adversarial loss labels) is still fresh. The dynamic test checks each.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import break_statuses, cli_findings, located, requires_torch, write_files

MODEL = """
    import torch
    from torch import nn


    class VAE(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, x):
            z = self.fc(x)
            noise = torch.randn_like(z)
            noise.requires_grad_(False)
            kept = z.detach()
            kept.requires_grad_(False)
            grad = torch.zeros_like(z)
            grad.requires_grad_()
            x.requires_grad_(False)
            self.fc.weight.requires_grad_(False)
            label = torch.tensor(1).fill_(1.0).type(z.type()).to(z.device)
            label.requires_grad_(False)
            return z + noise + kept + grad + label.expand_as(z)


    def breakscan_examples():
        yield VAE(), (torch.randn(2, 4, requires_grad=True),)
"""
PREDICTED = {("BRK301", "vae.py", 18), ("BRK301", "vae.py", 19), ("BRK301", "vae.py", 20)}


def test_requires_grad_false_on_a_fresh_tensor_is_not_flagged(tmp_path: Path) -> None:
    write_files(tmp_path, {"vae.py": MODEL})
    assert located(cli_findings(tmp_path, "vae.py", "--no-dynamic", "--no-cache")) == PREDICTED


@pytest.mark.dynamic
@requires_torch
def test_dynamo_confirms_which_requires_grad_calls_break(tmp_path: Path) -> None:
    write_files(tmp_path, {"vae.py": MODEL})
    findings = cli_findings(tmp_path, "vae.py", "--no-cache", "--backend", "eager")
    assert break_statuses(findings) == {(*p, "confirmed") for p in PREDICTED}
