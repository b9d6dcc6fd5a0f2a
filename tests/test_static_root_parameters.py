"""An unannotated parameter of `forward` is taken for a tensor by convention; a size computed
from it (`torch.arange(j - i, j)`, `view(b, h * w, c)`) is not flagged when the function never
uses the parameter as a tensor (no attribute or method of it is read), since the code itself uses
it as an int. A size computed from a known tensor, or from a parameter whose `.max()` the
function calls, still is.

Each test writes a user's package into a fresh directory and runs the CLI as a user does.
Measured on torch 2.13 (backend "eager"): a submodule's `forward(self, i, j)` called with the
parent's sequence lengths compiles without a break; `torch.arange(n + 1)` with `n` a 0-d tensor
computed in the graph breaks (GB0033, data-dependent operator).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import break_statuses, cli_findings, located, requires_torch, write_files

POSITIONS = """
    import torch
    from torch import nn


    class RelativeBias(nn.Module):
        def __init__(self):
            super().__init__()
            self.bias = nn.Embedding(16, 1)

        def forward(self, i, j):
            q = torch.arange(j - i, j, dtype=torch.long)
            k = torch.arange(j, dtype=torch.long)
            rel = (k[None, :] - q[:, None]).clamp(0, 15)
            return self.bias(rel).squeeze(-1)


    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.rel = RelativeBias()

        def forward(self, x, dims):
            height, width = dims
            scores = x @ x.transpose(-1, -2)
            y = scores + self.rel(x.shape[-2], x.shape[-2])
            return y.reshape(x.shape[0], height * width, -1)


    def breakscan_examples():
        yield Block(), (torch.randn(2, 4, 4), (2, 2))
"""


def test_root_parameters_used_as_sizes_are_not_flagged(tmp_path: Path) -> None:
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/positions.py": POSITIONS})
    assert located(cli_findings(tmp_path, "pkg", "--no-dynamic", "--no-cache")) == set()


def test_a_size_computed_from_a_known_tensor_is_still_flagged(tmp_path: Path) -> None:
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/count.py": """
        import torch
        from torch import nn


        class Count(nn.Module):
            def forward(self, x, n):
                total = (x > 0).sum()
                ids = torch.arange(total + 1)
                steps = torch.arange(n + 1)
                return ids, steps
    """})
    assert located(cli_findings(tmp_path, "pkg", "--no-dynamic", "--no-cache")) == {("BRK108", "count.py", 9)}


@pytest.mark.dynamic
@requires_torch
def test_dynamo_traces_the_int_sizes_without_a_break(tmp_path: Path) -> None:
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/positions.py": POSITIONS})
    assert break_statuses(cli_findings(tmp_path, "pkg", "--no-cache", "--backend", "eager")) == set()


@pytest.mark.dynamic
@requires_torch
def test_dynamo_breaks_on_the_size_computed_in_the_graph(tmp_path: Path) -> None:
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/count.py": """
        import torch
        from torch import nn


        class Count(nn.Module):
            def forward(self, x):
                total = (x > 0).sum()
                return torch.arange(total + 1)


        def breakscan_examples():
            yield Count(), (torch.randn(6),)
    """})
    assert break_statuses(cli_findings(tmp_path, "pkg", "--no-cache", "--backend", "eager")) == {
        ("BRK108", "count.py", 9, "confirmed")}


# A sampler's compiled `step(self, x, i)`: `i` only indexes and counts, so it is the int the caller
# passes; `t_prev`, read from a tensor attribute, is a tensor.
SAMPLER = {
    "sampling/__init__.py": "",
    "sampling/ddim.py": """
        import torch


        class DDIM:
            def __init__(self, model, steps=4):
                self.model = model
                self.alphas = torch.cumprod(1 - torch.linspace(1e-4, 2e-2, 50), 0)
                self.timesteps = torch.linspace(49, 0, steps).long()
                self.one = torch.tensor(1.0)

            def step(self, x, i):
                t = self.timesteps[i]
                t_prev = self.timesteps[i + 1] if i + 1 < len(self.timesteps) else torch.tensor(-1)
                a = self.alphas[t]
                a_prev = self.alphas[t_prev] if t_prev >= 0 else self.one
                eps = self.model(x)
                return a_prev.sqrt() * (x - (1 - a).sqrt() * eps) / a.sqrt()


        def breakscan_examples():
            sampler = DDIM(torch.nn.Conv2d(3, 3, 3, padding=1))
            yield sampler.step, (torch.randn(1, 3, 8, 8), 0)
        """,
}


@requires_torch
def test_a_branch_on_a_root_parameter_used_as_an_int_is_not_flagged(tmp_path: Path) -> None:
    write_files(tmp_path, SAMPLER)
    found = break_statuses(cli_findings(tmp_path, "check", "sampling", "--show-refuted", cache=tmp_path / "cache"))
    assert not {f for f in found if f[2] == 14}, found  # `i + 1 < len(...)`: Dynamo specialises `i`
    assert ("BRK101", "ddim.py", 16, "confirmed") in found  # `t_prev >= 0`: a tensor element
