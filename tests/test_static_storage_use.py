"""BRK274: a tensor's storage object used in a compile region. Dynamo traces
`x.untyped_storage()` with `.size()` and `.resize_()`, and no other method of it (GB0156), nor
`len()` of one (GB0088), nor the legacy `x.storage()` (GB0208): measured on 2.13 and 2.15. From
the dev user program `s8_t12_storage.py`; here a package with relative imports whose helpers are
unannotated and reach the storage directly and through a local."""

from __future__ import annotations

import pytest

from tests.conftest import assert_package_confirms, requires_torch, static_located

PACKAGE = {
    "memkit/__init__.py": "",
    "memkit/stats.py": '''
        import torch


        def payload_bytes(x):
            return x.untyped_storage().nbytes()


        def is_shared(t):
            store = t.untyped_storage()
            return store.is_shared()


        def storage_len(t):
            store = t.untyped_storage()
            return len(store)


        def legacy(t):
            return t.storage()


        def fine(t):
            store = t.untyped_storage()
            return t.numel() * t.element_size() + store.size() + t.nbytes
        ''',
    "memkit/model.py": '''
        import torch
        from torch import nn

        from .stats import fine, is_shared, legacy, payload_bytes, storage_len


        class Probe(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(4, 4)

            def forward(self, x):
                y = self.lin(x)
                n = payload_bytes(y) + fine(y)
                if is_shared(y):
                    y = y + 1
                m = storage_len(y)
                s = legacy(y)
                return y * 2, n, m, s
        ''',
    "memkit/run.py": '''
        import torch

        from .model import Probe

        torch.compile(Probe(), backend="eager")(torch.randn(2, 4))
        ''',
}
EXPECTED = {("BRK274", "stats.py", 6), ("BRK274", "stats.py", 11), ("BRK274", "stats.py", 16),
            ("BRK274", "stats.py", 20)}


def test_storage_methods_len_and_legacy_storage_are_flagged_and_size_is_not(tmp_path):
    assert {f for f in static_located(tmp_path, PACKAGE) if f[0] == "BRK274"} == EXPECTED


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_each_storage_use(tmp_path):
    assert_package_confirms(tmp_path, PACKAGE, "memkit.run", EXPECTED)
