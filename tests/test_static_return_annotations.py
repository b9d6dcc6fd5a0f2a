"""A value that becomes a tensor through a helper in another file takes the helper's return
annotation (`-> Tuple[Tensor, Tensor]`), so a name rebound from that call stays a tensor.

Each test writes a user's package into a fresh directory and runs the CLI as a user does.
Measured on torch 2.13 (backend "eager"): `edge_index[:, mask]` with `mask` a comparison of the
tensor `to_pairs` returned breaks with GB0036 (`aten.nonzero`, dynamic output shape); keeping the
shape with `weight * keep` does not break.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import break_statuses, cli_findings, located, requires_torch, write_files

SPARSE = """
    from typing import Tuple

    from torch import Tensor


    def to_pairs(adj: Tensor) -> Tuple[Tensor, Tensor]:
        adj = adj.coalesce()
        return adj.indices(), adj.values()


    def order(edge_index) -> Tensor:
        return edge_index.flip(0)
"""
GRAPH = """
    from typing import Optional

    from torch import Tensor

    from .sparse import to_pairs


    def drop_self_loops(edge_index: Tensor, weight: Optional[Tensor] = None):
        value = None
        if edge_index.is_sparse:
            edge_index, value = to_pairs(edge_index)
        keep = edge_index[0] != edge_index[1]
        edge_index = edge_index[:, keep]
        return edge_index, weight
"""
MODEL = """
    import torch
    from torch import nn

    from .graph import drop_self_loops


    class Conv(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, x, edges):
            edges, _ = drop_self_loops(edges)
            return self.lin(x), edges


    def breakscan_examples():
        yield Conv(), (torch.randn(3, 4), torch.tensor([[0, 1, 2], [0, 2, 2]]))
"""
GRAPH_PLAIN = GRAPH.replace("if edge_index.is_sparse:\n            edge_index", "edge_index")  # always rebound
PROJECT = {"pkg/__init__.py": "", "pkg/sparse.py": SPARSE, "pkg/graph.py": GRAPH, "pkg/model.py": MODEL}


def test_a_name_rebound_from_an_annotated_helper_in_another_file_stays_a_tensor(tmp_path: Path) -> None:
    # `edge_index, value = to_pairs(edge_index)` (graph.py) used to make edge_index unknown.
    write_files(tmp_path, PROJECT)
    assert located(cli_findings(tmp_path, "pkg", "--no-dynamic", "--no-cache")) == {("BRK106", "graph.py", 14)}


def test_a_helper_annotated_with_another_type_does_not_make_a_tensor(tmp_path: Path) -> None:
    # `-> Tuple[int, int]`: the rebound name is a Python value; nothing to flag. (The rebinding is
    # unconditional here: under `if edge_index.is_sparse:` the other path keeps the tensor, and
    # Dynamo breaks on that path.)
    write_files(tmp_path, {**PROJECT, "pkg/sparse.py": SPARSE.replace(
        "def to_pairs(adj: Tensor) -> Tuple[Tensor, Tensor]:", "def to_pairs(adj: Tensor) -> Tuple[int, int]:"),
        "pkg/graph.py": GRAPH_PLAIN})
    assert located(cli_findings(tmp_path, "pkg", "--no-dynamic", "--no-cache")) == set()


def test_a_tensor_kept_on_the_other_path_of_an_if_stays_a_tensor(tmp_path: Path) -> None:
    # `if edge_index.is_sparse: edge_index, value = to_pairs(...)` with `-> Tuple[int, int]`: the
    # dense path (the one Dynamo traces here) keeps the tensor, so the mask index still breaks.
    write_files(tmp_path, {**PROJECT, "pkg/sparse.py": SPARSE.replace(
        "def to_pairs(adj: Tensor) -> Tuple[Tensor, Tensor]:", "def to_pairs(adj: Tensor) -> Tuple[int, int]:")})
    assert located(cli_findings(tmp_path, "pkg", "--no-dynamic", "--no-cache")) == {("BRK106", "graph.py", 14)}


def test_an_annotated_tensor_return_from_another_file_decides_a_branch(tmp_path: Path) -> None:
    write_files(tmp_path, {**PROJECT, "pkg/model.py": """
        import torch
        from torch import nn

        from . import sparse


        class Flip(nn.Module):
            def forward(self, x, edges):
                flipped = sparse.order(edges)
                if flipped.sum() > 0:
                    return x * 2
                return x
    """})
    assert located(cli_findings(tmp_path, "pkg", "--no-dynamic", "--no-cache")) == {("BRK101", "model.py", 11)}


def test_editing_the_helpers_annotation_rechecks_its_callers(tmp_path: Path) -> None:
    write_files(tmp_path, {**PROJECT, "pkg/graph.py": GRAPH_PLAIN})
    cache = tmp_path / ".cache"
    assert located(cli_findings(tmp_path, "pkg", "--no-dynamic", cache=cache)) == {("BRK106", "graph.py", 13)}
    sparse = tmp_path / "pkg" / "sparse.py"
    sparse.write_text(sparse.read_text().replace("-> Tuple[Tensor, Tensor]:", "-> Tuple[int, int]:"))
    assert located(cli_findings(tmp_path, "pkg", "--no-dynamic", cache=cache)) == set()


@pytest.mark.dynamic
@requires_torch
def test_dynamo_confirms_the_mask_break_and_the_shape_keeping_form_compiles(tmp_path: Path) -> None:
    write_files(tmp_path, PROJECT)
    findings = cli_findings(tmp_path, "pkg", "--no-cache", "--backend", "eager")
    assert break_statuses(findings) == {("BRK106", "graph.py", 14, "confirmed")}
    fixed = tmp_path / "fixed"
    write_files(fixed, {**PROJECT, "pkg/graph.py": GRAPH.replace(
        "edge_index = edge_index[:, keep]", "edge_index = edge_index * keep")})
    assert break_statuses(cli_findings(fixed, "pkg", "--no-cache", "--backend", "eager")) == set()
