"""Tensor inference: flag tensors, never shapes, Python scalars or unknown values."""

from __future__ import annotations

from tests.conftest import rule_lines, static_findings


def test_item_on_parameters_buffers_and_torch_results(tmp_path):
    findings = static_findings(tmp_path, """
        import torch
        from torch import nn

        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.w = nn.Parameter(torch.ones(3))
                self.register_buffer("steps", torch.zeros(()))

            def forward(self, x):
                a = self.w.item()
                b = self.steps.item()
                c = torch.exp(x).sum().item()
                h, g = x.chunk(2)
                d = g.item()
                return a + b + c + d
    """)
    assert rule_lines(findings) == {("BRK102", 12), ("BRK102", 13), ("BRK102", 14), ("BRK102", 16)}


def test_unknown_and_python_values_are_not_flagged(tmp_path):
    findings = static_findings(tmp_path, """
        import torch
        from torch import nn

        class M(nn.Module):
            def forward(self, x, count: int = 3, scale=1.0):
                value = scale.item() + self.options.item()
                n = x.shape[0]
                return x * n * count * value
    """)
    assert findings == []


def test_annotations_type_parameters_of_helpers(tmp_path):
    findings = static_findings(tmp_path, """
        from typing import Optional
        import torch

        def helper(a: Optional[torch.Tensor], b: "torch.Tensor", c: int):
            s = a.item()
            t = b.item()
            return s + t + c.item()

        @torch.compile
        def f(x):
            return helper(x, x, 1)
    """)
    assert rule_lines(findings) == {("BRK102", 6), ("BRK102", 7)}
