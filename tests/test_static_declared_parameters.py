"""A parameter annotated as a tensor keeps that type through the body, as mypy reads it: a value
of unknown kind assigned to it on some path (`edge_type = edge_index.storage.value()` for a sparse
adjacency, a path Dynamo does not take with a dense one) leaves it a tensor after the `if`. Checked
through the CLI against Dynamo on a user's graph package (relative imports, an `OptTensor` alias),
also where a tuple assignment rebinds it. An unannotated parameter so reassigned is unknown after it."""

from __future__ import annotations

from tests.conftest import break_statuses, cli_findings, requires_torch, static_findings, write_files

PACKAGE = {
    "relgraph/__init__.py": "",
    "relgraph/typing.py": '''
        from typing import Optional

        from torch import Tensor

        OptTensor = Optional[Tensor]


        class SparseAdj:
            """An adjacency kept as (row, col) with a value per edge."""

            def __init__(self, row: Tensor, col: Tensor, value: Tensor):
                self.row, self.col, self.value = row, col, value
        ''',
    "relgraph/select.py": '''
        from torch import Tensor


        def masked_edges(edge_index: Tensor, edge_mask: Tensor) -> Tensor:
            return edge_index[:, edge_mask]
        ''',
    "relgraph/conv.py": '''
        import torch

        from .select import masked_edges
        from .typing import OptTensor, SparseAdj


        class RelationConv(torch.nn.Module):
            def __init__(self, relations=2):
                super().__init__()
                self.relations = relations
                self.lin = torch.nn.Linear(4, 4)

            def forward(self, x, edge_index, edge_type: OptTensor = None):
                if isinstance(edge_index, SparseAdj):  # it carries the relation types
                    edge_type = edge_index.value
                assert edge_type is not None
                if edge_type.max() >= self.relations:
                    raise ValueError("unknown relation type")
                out = self.lin(x)
                for i in range(self.relations):
                    sub = masked_edges(edge_index, edge_type == i)
                    out = out + x[sub[0]].sum(0)
                return out


        def scaled(x, scale):
            if hasattr(scale, "item"):
                scale = scale.tolist()
            if scale > 1:
                return x * scale
            return x


        def breakscan_examples():
            x, edge_index = torch.randn(6, 4), torch.randint(0, 6, (2, 12))
            yield RelationConv(), (x, edge_index, torch.randint(0, 2, (12,)))
        ''',
    "relgraph/readout.py": '''
        import torch

        from .typing import OptTensor


        def first_rows(rows, keep):
            return rows[keep]


        class Readout(torch.nn.Module):
            def forward(self, x, batch: OptTensor = None):
                if isinstance(x, (list, tuple)):  # a batch given as (x, info)
                    x, batch = x[0], getattr(x[1], "batch", None)
                if batch is not None:
                    x = first_rows(torch.relu(x), batch == 0)
                return x.sum(0)


        def breakscan_examples():
            yield Readout(), (torch.randn(5, 4), torch.tensor([0, 0, 1, 1, 1]))
        ''',
}


def test_a_declared_tensor_stays_one_after_an_assignment_of_unknown_kind(tmp_path):
    found = {(f.rule_id, f.path.rsplit("/", 1)[-1], f.line)
             for f in static_findings(tmp_path, PACKAGE) if f.rule_id.startswith("BRK1")}
    assert ("BRK101", "conv.py", 18) in found, found  # edge_type.max() >= ...
    assert ("BRK106", "select.py", 6) in found, found  # edge_type == i at every call: a mask
    assert not {f for f in found if f[1] == "conv.py" and f[2] >= 27}, found  # scale: not annotated


def test_a_declared_tensor_rebound_in_a_tuple_assignment_stays_one(tmp_path):
    found = {(f.rule_id, f.path.rsplit("/", 1)[-1], f.line)
             for f in static_findings(tmp_path, PACKAGE) if f.rule_id.startswith("BRK1")}
    assert ("BRK106", "readout.py", 8) in found, found  # batch == 0 after `x, batch = ...`: a mask


@requires_torch
def test_dynamo_confirms_the_breaks_on_the_declared_tensor(tmp_path):
    write_files(tmp_path, PACKAGE)
    found = break_statuses(cli_findings(tmp_path, "check", "relgraph", "--show-refuted", cache=tmp_path / "cache"))
    assert ("BRK101", "conv.py", 18, "confirmed") in found, found
    assert ("BRK106", "select.py", 6, "confirmed") in found, found
    assert ("BRK106", "readout.py", 8, "confirmed") in found, found
    assert not {f for f in found if f[3] in ("refuted", "observed")}, found
