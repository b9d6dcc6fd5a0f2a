"""`and` / `or` chains whose value under Dynamo is known from the operands Python evaluates first
(`torch.jit.is_scripting() or is_compiling()`, `not is_compiling() and <tensor test>`), and
`get_worker_info() is None` (True in a compiled region: DataLoader worker info exists only in
a worker process). The arm Dynamo never runs, the statements after a known arm that returns, the operands it never evaluates and the helpers
only they call are not traced, so nothing there is predicted; the `get_worker_info()` call
itself breaks (GB0007, BRK240). Measured on 2.13 and 2.15; the library diff of this change
removed such predictions from torch_geometric (`MessagePassing._index_select_safe`), kornia
(deprecation warnings behind `not is_compiling() and ...`) and transformers (Qwen2-Audio's legacy
merge behind `not is_torchdynamo_compiling() and legacy_processing`). A package with relative
imports and unannotated helpers."""

from __future__ import annotations

import pytest

from tests.conftest import assert_package_confirms, requires_torch, static_located

PACKAGE = {
    "guardkit/__init__.py": "",
    "guardkit/ops.py": '''
        import warnings

        import torch
        from torch.compiler import is_compiling


        def safe_select(src, index):
            if index.max() >= src.size(0):
                raise IndexError(f"index {index.max().item()} out of range")
            return src.index_select(0, index)


        def select(src, index):
            if torch.jit.is_scripting() or is_compiling():
                return src.index_select(0, index)
            return safe_select(src, index)


        def scaled(x, eps):
            if not torch.jit.is_scripting() and not is_compiling() and x.sum() > eps:
                warnings.warn("eps is deprecated")
            return x * 2


        def capturing():
            return is_compiling() or torch.xpu.is_current_stream_capturing()


        def shifted(x):
            if torch.utils.data.get_worker_info() is not None:
                return x + x.sum().item()
            return x + 1
        ''',
    "guardkit/model.py": '''
        import torch
        from torch import nn

        from .ops import capturing, scaled, select, shifted


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(4, 4)

            def forward(self, x, index):
                y = select(self.lin(x), index)
                y = scaled(y, 1e-8)
                if capturing():
                    y = y * 2
                return shifted(y)
        ''',
    "guardkit/run.py": '''
        import torch

        from .model import Net

        torch.compile(Net(), backend="eager")(torch.randn(3, 4), torch.tensor([0, 2]))
        ''',
}
EXPECTED = {("BRK240", "ops.py", 31)}


def test_only_the_worker_info_call_is_predicted(tmp_path):
    assert static_located(tmp_path, PACKAGE) == EXPECTED


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_breaks_only_at_the_worker_info_call(tmp_path):
    assert_package_confirms(tmp_path, PACKAGE, "guardkit.run", EXPECTED)
