"""BRK260 through a parameter: indexing a tensor with a 0-dim integer tensor breaks (GB0033,
measured on 2.13 and 2.15), and a parameter is known to be 1-dim when every call of its
module-level function, in its module or in the modules importing it by name, passes a 1-dim tensor
made in place (`torch.tensor([0, 3, 5])`, `torch.arange(n)`): its elements, and an integer-literal
index of it, are then 0-dim. The arguments are followed through the caller's own parameters (a
helper called by the compiled function), and a local stored more than once is 1-dim when every
store makes it so (`order = order[1:][dist > thr]`: a mask keeps 1-dim). From the dev user programs
`s8_u22_tensor_in_list_index.py` and `p105_nms.py`; here a package with relative imports and
unannotated helpers, compiled through aliases."""

from __future__ import annotations

import pytest

from tests.conftest import assert_package_confirms, requires_torch, static_located

PACKAGE = {
    "pick/__init__.py": "",
    "pick/ops.py": '''
        import torch


        def pick_rows(table, positions):
            out = []
            for p in positions:
                out.append(table[p])
            return torch.stack(out)


        def first_of(table, order):
            head = order[0]
            return table[head] * 2


        def by_grid(table, grid):
            out = []
            for row in grid:
                out.append(table[row])
            return torch.cat(out)


        def suppress(boxes, scores, thr=0.5):
            order = scores.argsort(descending=True)
            keep = []
            while order.numel() > 0:
                best = order[0]
                keep.append(best)
                dist = (boxes[order[1:]] - boxes[best]).abs().sum(-1)
                order = order[1:][dist > thr]
            return torch.stack(keep)


        def postprocess(boxes, scores):
            return suppress(boxes, scores)
        ''',
    "pick/run.py": '''
        import torch

        from .ops import by_grid, first_of, pick_rows, postprocess

        table = torch.randn(6, 2)
        step = torch.compile(pick_rows, backend="eager")
        step(table, torch.tensor([0, 3, 5]))
        torch.compile(first_of, backend="eager")(table, torch.arange(4).flip(0))
        torch.compile(by_grid, backend="eager")(table, torch.tensor([[0, 1], [2, 3]]))
        torch.compile(postprocess, backend="eager")(torch.rand(6, 4), torch.rand(6))
        ''',
}
EXPECTED = {("BRK260", "ops.py", 8), ("BRK260", "ops.py", 14), ("BRK260", "ops.py", 30)}

UNKNOWN_RANK = {
    "mix/__init__.py": "",
    "mix/ops.py": '''
        import torch


        def gather(table, idx):
            out = []
            for i in idx:
                out.append(table[i])
            return torch.stack(out)


        def leading(table, order):
            order = order.flatten()
            return table[order[0]]
        ''',
    "mix/run.py": '''
        import torch

        from .ops import gather, leading

        table = torch.randn(6, 2)
        fast = torch.compile(gather, backend="eager")
        fast(table, torch.tensor([1, 2]))
        fast(table, torch.tensor([[1], [2]]))
        torch.compile(leading, backend="eager")(table, torch.tensor([[1, 2]]))
        gather(table, [torch.tensor(1)])
        ''',
}


def test_parameters_every_call_gives_a_1_dim_tensor_index_as_0_dim_elements(tmp_path):
    assert {f for f in static_located(tmp_path, PACKAGE) if f[0] == "BRK260"} == EXPECTED


def test_a_call_with_another_rank_or_a_rebound_parameter_is_not_matched(tmp_path):
    assert not {f for f in static_located(tmp_path, UNKNOWN_RANK) if f[0] == "BRK260"}


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_each_index_by_an_element_of_a_passed_1_dim_tensor(tmp_path):
    assert_package_confirms(tmp_path, PACKAGE, "pick.run", EXPECTED)
