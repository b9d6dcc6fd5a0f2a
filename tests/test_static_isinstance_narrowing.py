"""`if isinstance(x, Tensor):` proves `x` a tensor in the branch's body (Dynamo decides the
`isinstance` while tracing): a parameter annotated `Union[Tensor, Tuple[Tensor, Tensor]]` (a graph
library's edge index) is a tensor there, and `int(x.max())` breaks (GB0124), confirmed by Dynamo
2.13 through the CLI. Past the `if` the name is what it was before: an unannotated parameter that
is a Python number at the only call site stays unflagged."""

from __future__ import annotations

from tests.conftest import break_statuses, cli_findings, requires_torch, write_files

# A user's graph package: the helper takes an edge index as a tensor or a pair of tensors.
PACKAGE = {
    "graphs/__init__.py": "",
    "graphs/num_nodes.py": '''
        from typing import Optional, Tuple, Union

        import torch
        from torch import Tensor


        def count_nodes(edge_index: Union[Tensor, Tuple[Tensor, Tensor]], num_nodes: Optional[int] = None) -> int:
            if num_nodes is not None:
                return num_nodes
            elif isinstance(edge_index, Tensor):
                return int(edge_index.max()) + 1 if edge_index.numel() > 0 else 0
            return max(int(edge_index[0].max()), int(edge_index[1].max())) + 1


        def scaled(value, factor):
            if isinstance(value, torch.Tensor) and factor > 0:
                value = value * factor
            return int(value) + 1
        ''',
    "graphs/loops.py": '''
        import torch

        from .num_nodes import count_nodes, scaled


        def add_loops(edge_index, num_nodes=None):
            n = count_nodes(edge_index, num_nodes) + scaled(3, 2)
            loops = torch.arange(n, device=edge_index.device)
            return torch.cat([edge_index, torch.stack([loops, loops])], dim=1)


        def breakscan_examples():
            yield add_loops, (torch.randint(0, 5, (2, 10)),)
        ''',
}


@requires_torch
def test_isinstance_tensor_branch_makes_a_union_parameter_a_tensor(tmp_path):
    write_files(tmp_path, PACKAGE)
    found = break_statuses(cli_findings(tmp_path, "check", "graphs", "--show-refuted", cache=tmp_path / "cache"))
    assert ("BRK104", "num_nodes.py", 12, "confirmed") in found  # int(edge_index.max()) under the isinstance
    assert not {f for f in found if f[1] == "num_nodes.py" and f[2] in (13, 19)}  # the pair branch; past the if: `value` unknown
    assert not {f for f in found if f[3] in ("refuted", "observed")}
