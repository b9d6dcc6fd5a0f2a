"""BRK408: a project `nn.Module` built inside a compile region (regions.py follows `Block(...)`
into the class's `__init__`). Each test writes a user's package (relative imports, no
annotations) and runs the CLI; the first runs real Dynamo 2.13.

Measured on 2.13 (backend "eager"): building a module whose `__init__` breaks (an `nn.Linear`
there or in a project base's `__init__`, GB0264) makes each `__init__` of the chain a frame of its
own, which falls back at its `super().__init__()` (GB0119); a module built without a break (no
parameters) is traced and does not break. transformers' BigBirdPegasus swaps its attention this
way (`set_attention_type("original_full")` from `forward` when the input is short).
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import break_statuses, cli_findings, located, requires_torch, write_files

PACKAGE = {
    "swap/__init__.py": "",
    "swap/attention.py": '''
        import torch
        from torch import nn


        class BaseAttention(nn.Module):
            def __init__(self, dim):
                super().__init__()
                self.query = nn.Linear(dim, dim)

            def forward(self, x):
                return torch.softmax(self.query(x) @ x.transpose(-1, -2), dim=-1) @ x


        class FullAttention(BaseAttention):
            def __init__(self, dim):
                super().__init__(dim)
                self.full = True


        class Scale(nn.Module):
            def __init__(self, factor):
                super().__init__()
                self.factor = factor

            def forward(self, x):
                return x * self.factor
    ''',
    "swap/layer.py": '''
        import torch
        from torch import nn

        from .attention import FullAttention, Scale


        class Layer(nn.Module):
            def __init__(self, dim):
                super().__init__()
                self.dim = dim
                self.kind = "sparse"
                self.attn = nn.Identity()

            def set_kind(self, kind):
                if kind == self.kind:
                    return
                self.attn = FullAttention(self.dim)
                self.kind = kind

            def forward(self, x):
                if x.shape[1] < 8:
                    self.set_kind("full")
                scale = Scale(2.0)
                return scale(self.attn(x)) + x


        def breakscan_examples():
            yield Layer(4), (torch.randn(2, 3, 4),)
    ''',
}


@requires_torch
def test_a_module_built_in_forward_falls_back_at_its_nn_module_init_and_dynamo_confirms(tmp_path: Path) -> None:
    write_files(tmp_path, PACKAGE)
    found = break_statuses(cli_findings(tmp_path, "swap", "--show-refuted", cache=tmp_path / ".cache"))
    assert found == {
        ("BRK408", "attention.py", 8, "confirmed"),  # BaseAttention's super().__init__(), reached from FullAttention
        ("BRK303", "attention.py", 9, "confirmed"),  # nn.Linear built there
        ("BRK408", "attention.py", 17, "confirmed"),  # FullAttention's own __init__ falls back too
    }  # Scale(2.0) builds no parameter: Dynamo traces it, nothing is flagged there


def test_a_module_built_without_a_break_and_modules_built_in_init_are_not_flagged(tmp_path: Path) -> None:
    files = dict(PACKAGE)
    files["swap/layer.py"] = PACKAGE["swap/layer.py"].replace(
        "self.attn = nn.Identity()", "self.attn = FullAttention(dim)").replace(
        "self.attn = FullAttention(self.dim)", "self.attn = self.attn")
    write_files(tmp_path, files)
    assert located(cli_findings(tmp_path, "swap", "--no-dynamic", "--no-cache")) == set()
