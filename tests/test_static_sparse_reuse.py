"""BRK243: a sparse tensor made in a compiled region breaks again at its next read, in a user's
script through `breakscan run` (static pass and Dynamo on the same lines): `torch.sparse.mm(a, x)`
after `a = x.to_sparse()`, `return adj` in a helper that built it, and the caller's `adj @ x` on
what that helper returned. Not matched: the second read (the resumed frame runs eagerly) and a
name rebound to a dense tensor before it is read.
"""

from __future__ import annotations

import pytest

from tests.conftest import assert_script_confirms, assert_script_flags, requires_torch

SCRIPT = '''\
import torch


def to_coo(edge_index, num_nodes):
    values = torch.ones(edge_index.size(1))
    adj = torch.sparse_coo_tensor(edge_index, values, (num_nodes, num_nodes))
    return adj


@torch.compile(backend="eager")
def propagate(dense_adj, x):
    a = dense_adj.to_sparse()
    y = torch.sparse.mm(a, x)
    z = torch.sparse.mm(a, y)
    return z


@torch.compile(backend="eager")
def gcn(edge_index, x):
    adj = to_coo(edge_index, x.shape[0])
    return adj @ x


@torch.compile(backend="eager")
def rebound(x):
    a = x.to_sparse()
    a = x * 2
    return a + 1


propagate(torch.eye(4), torch.randn(4, 3))
gcn(torch.tensor([[0, 1, 2], [1, 2, 3]]), torch.randn(4, 3))
rebound(torch.randn(3))
'''

EXPECTED = [("BRK226", 6), ("BRK243", 7), ("BRK226", 12), ("BRK243", 13), ("BRK243", 21), ("BRK226", 26)]


def test_reads_of_a_sparse_tensor_made_in_the_region_are_flagged_once(tmp_path):
    assert_script_flags(tmp_path, SCRIPT, EXPECTED, quiet_lines=(14, 15, 27, 28))


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_the_sparse_reuse_breaks(tmp_path):
    assert_script_confirms(tmp_path, SCRIPT, EXPECTED)
