"""Two ways values become known tensors in user code, driven through `breakscan run` (2.13 and
2.15):
- `if mask.dtype == torch.bool:` proves `mask` a boolean tensor in the body (Dynamo decides the
  test while tracing), so a helper it is passed to indexes by a mask there (BRK106, GB0036), as
  torch_geometric's `select(src, index_or_mask, dim)`; the other path (`index_select`) is quiet;
- `for i, (start, end) in enumerate(zip(ptr[:-1], ptr[1:])):` binds two tensors, so slicing by
  them is BRK258 (GB0124), as torch_geometric's `HeteroLinear.forward_naive`.
"""

from __future__ import annotations

import pytest

from tests.conftest import assert_script_confirms, assert_script_flags, requires_torch

SCRIPT = '''\
import torch


def mask_select(src: torch.Tensor, dim: int, mask: torch.Tensor) -> torch.Tensor:
    src = src.transpose(0, dim) if dim != 0 else src
    out = src[mask]
    return out.transpose(0, dim) if dim != 0 else out


def select(src, index_or_mask: torch.Tensor, dim: int):
    if index_or_mask.dtype == torch.bool:
        return mask_select(src, dim, index_or_mask)
    return src.index_select(dim, index_or_mask)


def segments(x, weight, type_ptr):
    out = x.new_empty(x.size(0), weight.size(-1))
    for i, (start, end) in enumerate(zip(type_ptr[:-1], type_ptr[1:])):
        out[start:end] = x[start:end] @ weight[i]
    return out


@torch.compile(backend="eager")
def pick(x, m, w, ptr):
    return select(x, m, 0), segments(x, w, ptr)


pick(torch.randn(6, 4), torch.rand(6) > 0.5, torch.randn(2, 4, 3), torch.tensor([0, 3, 6]))
'''
BREAKS = [("BRK106", 6), ("BRK258", 19)]


def test_dtype_test_and_zipped_bounds_make_tensors(tmp_path):
    assert_script_flags(tmp_path, SCRIPT, BREAKS, quiet_lines=[13])


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_mask_and_bound_breaks(tmp_path):
    assert_script_confirms(tmp_path, SCRIPT, BREAKS)
