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


def test_numpy_results_are_tensors_under_dynamo(tmp_path):
    # Dynamo traces NumPy as torch (checked on 2.13: GB0170 on the branch, GB0033 on the size);
    # finfo and predicates such as isscalar do not return arrays, so the branch on isscalar is no
    # data-dependent branch: the call itself breaks (a Python bool from NumPy, GB0208: BRK276).
    findings = static_findings(tmp_path, """
        import numpy as np
        import torch

        @torch.compile
        def f(x, plan):
            if np.sum(plan) > 2:
                x = x + 1
            table = np.zeros((2, np.sum(plan)), dtype=np.int32)
            if np.finfo(np.float32).eps > 0:
                x = x * 2
            if np.isscalar(plan):
                x = x * 3
            return x + table.shape[1]
    """)
    assert rule_lines(findings) == {("BRK101", 7), ("BRK108", 9), ("BRK276", 12)}


def test_return_kinds_of_functions_and_methods_in_the_module(tmp_path):
    findings = static_findings(tmp_path, """
        import torch
        from torch import nn

        def count(mask: torch.Tensor):
            return mask.sum()

        def width(config):
            if config.wide:
                return config.hidden
            return config.hidden * 2

        def rows(x):
            for row in x:
                yield row

        class M(nn.Module):
            def _scale(self, x):
                return self.helper(x) if x.dim() > 2 else torch.ones(())

            def _again(self, x):
                return self._again(x)

            def forward(self, x, mask, config):
                n = count(mask)
                if n > 0:
                    x = x + 1
                if width(config) > 4:
                    x = x * 2
                if self._scale(x) > 1:
                    x = x * 3
                if self._again(x):
                    x = x * 4
                for r in rows(x):
                    x = x + r
                return x
    """)
    # count() returns a tensor; width() a config value; _scale() one unknown branch; _again recurses
    assert rule_lines(findings) == {("BRK101", 26)}


def test_a_local_name_shadows_a_module_function(tmp_path):
    findings = static_findings(tmp_path, """
        import torch

        def total(x):
            return x.sum()

        @torch.compile
        def f(x, total=len):
            if total(x) > 1:
                x = x + 1
            return x
    """)
    assert findings == []


def test_and_or_value_may_be_its_tensor_operand(tmp_path):
    findings = static_findings(tmp_path, """
        import torch

        @torch.compile
        def f(x, flag: bool):
            ready = (x.sum() > 0) and flag
            if ready:
                x = x + 1
            unknown = (x.sum() > 0) and x.custom_flag
            if unknown:
                x = x * 2
            return x
    """)
    assert rule_lines(findings) == {("BRK101", 6), ("BRK101", 7), ("BRK101", 9)}


def test_a_flagged_name_is_placed_at_its_own_occurrence(tmp_path):
    # The name occurs three times (assigned, tested twice): each test gets its own line.
    findings = static_findings(tmp_path, """
        import torch

        @torch.compile
        def f(x):
            big = x.sum() > 0
            y = x + 1
            if big:
                y = y * 2
            z = y - 1
            if big:
                z = z * 3
            return z
    """)
    assert rule_lines(findings) == {("BRK101", 8), ("BRK101", 11)}


def test_torch_state_queries_are_python_values(tmp_path):
    findings = static_findings(tmp_path, """
        import torch

        def fp16_enabled(device_type):
            dtype = torch.get_autocast_dtype(device_type)
            enabled = dtype == torch.float16
            return enabled and torch.is_autocast_enabled(device_type)

        @torch.compile
        def f(x):
            if fp16_enabled(x.device.type):
                x = x.half()
            if torch.get_rng_state().sum() > 0:
                x = x + 1
            return x
    """)
    assert rule_lines(findings) == {("BRK101", 13), ("BRK215", 13)}  # BRK215: RNG state access
