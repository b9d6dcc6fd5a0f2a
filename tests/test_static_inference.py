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
                value = scale.item()
                if self.options.sum() > 0:
                    value = value + 1
                n = x.shape[0]
                return x * n * count * value
    """)
    assert findings == []


def test_item_on_a_value_of_unknown_type_is_flagged_and_flags_by_name_are_not(tmp_path):
    findings = static_findings(tmp_path, """
        import torch
        from torch import nn

        class M(nn.Module):
            def forward(self, x, output_attentions, attention_mask=None, use_cache=None):
                if output_attentions or use_cache:
                    x = x + 1
                if attention_mask.sum() > 0:
                    x = x * 2
                return x * self.scale_tensor().item()
    """)
    assert rule_lines(findings) == {("BRK101", 9), ("BRK102", 11)}


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
