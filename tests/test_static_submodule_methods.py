"""Methods called on submodules are traced: `self.attn.helper(x)` and `layer.helper(y)` inside
`for layer in self.layers` (an `nn.ModuleList` built in `__init__`, also through `enumerate`).
Dynamo 2.13 inlines them into the caller's trace, so a break inside is predicted and confirmed,
through the CLI on a user package with a relative import. A method of a plain Python list
element (`for name in self.names`) is not resolved (no prediction, no break)."""

from __future__ import annotations

from tests.conftest import break_statuses, cli_findings, requires_torch, write_files

PACKAGE = {
    "net/__init__.py": "",
    "net/blocks.py": '''
        import torch
        from torch import nn


        class Attention(nn.Module):
            def __init__(self, dim):
                super().__init__()
                self.proj = nn.Linear(dim, dim)

            def set_scale(self, x):
                print("scale set")
                return x * 0.5

            def forward(self, x):
                return self.proj(x)


        class Layer(nn.Module):
            def __init__(self, dim):
                super().__init__()
                self.norm = nn.LayerNorm(dim)

            def prepare(self, x):
                if x.sum() > 0:
                    x = x - 1
                return self.norm(x)
        ''',
    "net/model.py": '''
        import torch
        from torch import nn

        from .blocks import Attention, Layer


        class Net(nn.Module):
            def __init__(self, dim=4):
                super().__init__()
                self.attn = Attention(dim)
                self.layers = nn.ModuleList([Layer(dim) for _ in range(2)])
                self.names = ["a", "b"]

            def forward(self, x):
                y = self.attn.set_scale(x)
                for i, layer in enumerate(self.layers):
                    y = y + layer.prepare(x)
                for name in self.names:
                    y = y + len(name.upper())
                return self.attn(y)


        def breakscan_examples():
            yield Net(), (torch.randn(2, 4),)
        ''',
}


@requires_torch
def test_methods_of_submodules_and_module_list_elements_are_traced(tmp_path):
    write_files(tmp_path, PACKAGE)
    found = break_statuses(cli_findings(tmp_path, "check", "net", "--show-refuted", cache=tmp_path / "cache"))
    assert ("BRK201", "blocks.py", 12, "confirmed") in found  # print in Attention.set_scale via self.attn
    assert ("BRK101", "blocks.py", 25, "confirmed") in found  # tensor branch in Layer.prepare via the loop
    assert not {f for f in found if f[3] in ("refuted", "observed")}
