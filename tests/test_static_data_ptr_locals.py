"""BRK401 on a local that holds a storage address: `ptr = x.data_ptr()` is traced, but computing
with it (`ptr % 64`) makes the frame fall back (GB0088) and comparing two (`p == q`) breaks
(GB5976), each at the line that uses it (measured on 2.13 and 2.15). Formatting it, returning
it or using it as a dict key is traced: not flagged. A package with relative imports, the
helpers unannotated, as users write them."""

from __future__ import annotations

import pytest

from tests.conftest import assert_package_confirms, requires_torch, static_located

PACKAGE = {
    "bufkit/__init__.py": "",
    "bufkit/buffers.py": '''
        def aligned(x):
            ptr = x.data_ptr()
            pad = ptr % 64
            return x + pad


        def shares_storage(a, b):
            p = a.data_ptr()
            q = b.data_ptr()
            out = a + b
            if p == q:
                return out * 2
            return out


        def tagged(x, cache):
            key = x.data_ptr()
            name = f"buf{key}"
            cache[key] = name
            return x + 1, key
        ''',
    "bufkit/run.py": '''
        import torch

        from .buffers import aligned, shares_storage, tagged

        x, y = torch.randn(4), torch.randn(4)
        torch.compile(aligned, backend="eager")(x)
        torch.compile(shares_storage, backend="eager")(x, y)
        torch.compile(tagged, backend="eager")(x, {})
        ''',
}
EXPECTED = {("BRK401", "buffers.py", 4), ("BRK401", "buffers.py", 12)}


def test_locals_holding_an_address_are_flagged_where_used(tmp_path):
    assert {f for f in static_located(tmp_path, PACKAGE) if f[0] == "BRK401"} == EXPECTED


def test_a_local_bound_again_is_not_an_address(tmp_path):
    files = dict(PACKAGE)
    files["bufkit/buffers.py"] = PACKAGE["bufkit/buffers.py"].replace(
        "pad = ptr % 64", "ptr = x.numel()\n            pad = ptr % 64")
    found = {f for f in static_located(tmp_path, files) if f[0] == "BRK401"}
    assert found == {("BRK401", "buffers.py", 13)}


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_the_address_uses_and_nothing_else(tmp_path):
    assert_package_confirms(tmp_path, PACKAGE, "bufkit.run", EXPECTED)
