"""`math` functions of a tensor (`math.isnan(t)`, `math.sqrt(t)`, `math.log(t)`) read `float(t)`
through a data-dependent operator: BRK104, as `int(t)` (GB0033, measured on 2.13 and 2.15).
`math.prod`, `math` of Python numbers and shapes, and parameters that are tensors only by
convention are not flagged. Checked through the CLI against Dynamo on a user-style package."""

from __future__ import annotations

import pytest

from tests.conftest import break_statuses, cli_findings, requires_torch, static_findings, write_files

PACKAGE = {
    "stats/__init__.py": "",
    "stats/helpers.py": '''
        import math


        def safe_log(value):
            if math.isnan(value) or value <= 0:
                return 0.0
            return math.log(value)
        ''',
    "stats/model.py": '''
        import math

        import torch
        from torch import nn

        from .helpers import safe_log


        class Scaled(nn.Module):
            def __init__(self, dim=4):
                super().__init__()
                self.lin = nn.Linear(dim, dim)
                self.head_dim = dim

            def forward(self, x, temperature):
                h = self.lin(x) / math.sqrt(self.head_dim)
                spread = h.var()
                h = h / math.sqrt(spread)
                cells = math.prod(h.shape)
                return h * safe_log(h.abs().mean()) / cells / math.exp(temperature)


        model = Scaled()


        @torch.compile(backend="eager")
        def step(x):
            return model(x, 2.0)


        def breakscan_examples():
            yield step, (torch.randn(3, 4),)
        ''',
}


def _lines(findings, name):
    return {f.line for f in findings if f.rule_id == "BRK104" and f.path.endswith(name)}


def test_math_of_a_tensor_is_a_scalar_conversion(tmp_path):
    found = static_findings(tmp_path, PACKAGE, regions="explicit")
    assert _lines(found, "model.py") == {19}, found  # math.sqrt(spread); not head_dim, prod, temperature
    assert _lines(found, "helpers.py") == {6, 8}, found  # math.isnan(value), math.log(value): a tensor at the call


@pytest.mark.dynamic
@requires_torch
def test_dynamo_confirms_math_conversions(tmp_path):
    write_files(tmp_path, PACKAGE)
    found = break_statuses(cli_findings(tmp_path, "check", "stats", "--show-refuted", cache=tmp_path / "cache"))
    assert ("BRK104", "model.py", 19, "confirmed") in found, found
    assert ("BRK104", "helpers.py", 6, "confirmed") in found, found
    assert ("BRK104", "helpers.py", 8, "confirmed") in found, found
    assert not {f for f in found if f[3] in ("refuted", "observed")}, found
