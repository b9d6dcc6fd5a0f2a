"""Two ways a parameter's annotation is made to say what the parameter holds, confirmed by Dynamo
2.13 through the CLI on a user's graph package:

- a project type alias (`OptTensor = Optional[Tensor]` in the package's `typing` module, imported
  relatively) is resolved: `edge_weight: OptTensor = None` is a tensor, and a Python branch on
  `edge_weight.min() < 0` is data-dependent (GB0170);
- a parameter annotated `Tensor` that every call site passes a comparison (`edge_type == i`) is a
  boolean mask: `edge_index[:, edge_mask]` has a data-dependent size (GB0036, the helper's frame
  falls back). The same helper called with an integer index tensor elsewhere is not flagged.
"""

from __future__ import annotations

from tests.conftest import break_statuses, cli_findings, requires_torch, write_files

PACKAGE = {
    "graphnet/__init__.py": "",
    "graphnet/typing.py": '''
        from typing import Optional, Tuple

        from torch import Tensor

        OptTensor = Optional[Tensor]
        PairTensor = Tuple[Tensor, Tensor]
        ''',
    "graphnet/select.py": '''
        from torch import Tensor


        def masked_edges(edge_index: Tensor, edge_mask: Tensor) -> Tensor:
            return edge_index[:, edge_mask]


        def picked_edges(edge_index: Tensor, picks: Tensor) -> Tensor:
            return edge_index[:, picks]
        ''',
    "graphnet/conv.py": '''
        import torch

        from .select import masked_edges, picked_edges
        from .typing import OptTensor


        class WeightedConv(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = torch.nn.Linear(4, 4)

            def forward(self, x, edge_index, edge_weight: OptTensor = None):
                if edge_weight is not None and edge_weight.min() < 0:
                    edge_weight = edge_weight.abs()
                first = picked_edges(edge_index, torch.arange(3))
                return self.lin(x) + first.sum()


        class RelationConv(torch.nn.Module):
            def __init__(self, relations=2):
                super().__init__()
                self.relations = relations
                self.lin = torch.nn.Linear(4, 4)

            def forward(self, x, edge_index, edge_type: OptTensor = None):
                out = self.lin(x)
                for i in range(self.relations):
                    sub = masked_edges(edge_index, edge_type == i)
                    out = out + x[sub[0]].sum(0)
                return out


        def breakscan_examples():
            x, edge_index = torch.randn(6, 4), torch.randint(0, 6, (2, 12))
            yield WeightedConv(), (x, edge_index, torch.rand(12))
            yield RelationConv(), (x, edge_index, torch.randint(0, 2, (12,)))
        ''',
}


@requires_torch
def test_type_aliases_resolve_and_masks_passed_at_every_call_are_masks(tmp_path):
    write_files(tmp_path, PACKAGE)
    found = break_statuses(cli_findings(tmp_path, "check", "graphnet", "--show-refuted", cache=tmp_path / "cache"))
    assert ("BRK101", "conv.py", 14, "confirmed") in found  # edge_weight: OptTensor, `.min() < 0` branched on
    assert ("BRK106", "select.py", 6, "confirmed") in found  # edge_mask: `edge_type == i` at every call
    assert not {f for f in found if f[1] == "select.py" and f[2] == 10}  # picks: an integer index tensor
    assert not {f for f in found if f[3] in ("refuted", "observed")}
