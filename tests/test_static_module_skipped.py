"""BRK240 from torch's module skip list: a public function of a torch module Dynamo skips
whole (`trace_rules.MOD_SKIPLIST`: `torch.utils.data.get_worker_info`,
`torch.multiprocessing.get_sharing_strategy`...) breaks the graph where it is called (GB0007).
The names are data (`rules/data/torch-ops.json`, tag `dynamo_skipped_functions`), each confirmed
by scripts/refresh_torch_data.py with a `fullgraph=True` compile. A package with relative imports
whose helpers are unannotated, imported by name and by module."""

from __future__ import annotations

import pytest

from tests.conftest import assert_package_confirms, requires_torch, static_located

PACKAGE = {
    "loadkit/__init__.py": "",
    "loadkit/env.py": '''
        import torch.multiprocessing as mp
        from torch.utils.data import get_worker_info


        def worker_seed(base):
            info = get_worker_info()
            return base if info is None else base + info.id


        def strategy():
            return mp.get_sharing_strategy()
        ''',
    "loadkit/model.py": '''
        import torch
        from torch import nn

        from .env import strategy, worker_seed


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(4, 4)

            def forward(self, x):
                y = self.lin(x)
                seed = worker_seed(3)
                mode = strategy()
                return y + seed, mode
        ''',
    "loadkit/run.py": '''
        import torch

        from .model import Net

        torch.compile(Net(), backend="eager")(torch.randn(2, 4))
        ''',
}
EXPECTED = {("BRK240", "env.py", 7), ("BRK240", "env.py", 12)}


def test_functions_of_skipped_torch_modules_are_flagged(tmp_path):
    assert {f for f in static_located(tmp_path, PACKAGE) if f[0] == "BRK240"} == EXPECTED


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_each_call(tmp_path):
    assert_package_confirms(tmp_path, PACKAGE, "loadkit.run", EXPECTED)
