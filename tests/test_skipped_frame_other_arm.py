"""A break in a loop makes Dynamo skip the rest of its frame, but only in the call that reached
the loop: the other arm of an `if` around the loop never runs in that call, so the breaks
predicted there are kept (not dropped as eager code after the skip). Checked with Dynamo 2.13
through the CLI: the `else` arm's `int(counts.max())` breaks (GB0124) and is confirmed."""

from __future__ import annotations

from tests.conftest import break_statuses, cli_findings, requires_torch, write_files

# A user's relational graph layer: two code paths chosen by a constructor option.
PACKAGE = {
    "relgraph/__init__.py": "",
    "relgraph/counts.py": '''
        import torch


        def relation_counts(edge_type: torch.Tensor, relations: int) -> torch.Tensor:
            return (edge_type.unsqueeze(0) == torch.arange(relations).unsqueeze(1)).sum(1)
        ''',
    "relgraph/layer.py": '''
        import torch

        from .counts import relation_counts


        class RelationLayer(torch.nn.Module):
            def __init__(self, relations=3, blocks=None):
                super().__init__()
                self.relations = relations
                self.blocks = blocks
                self.scale = torch.nn.Parameter(torch.ones(4))

            def forward(self, x, edge_type):
                out = x * self.scale
                if self.blocks is not None:
                    for i in range(self.relations):
                        out = out + (edge_type == i).sum().item()
                else:
                    counts = relation_counts(edge_type, self.relations)
                    out = out * int(counts.max())
                return out


        def breakscan_examples():
            yield RelationLayer(), (torch.randn(6, 4), torch.randint(0, 3, (12,)))
        ''',
}


@requires_torch
def test_breaks_in_the_other_arm_of_an_if_around_a_skipped_loop_are_kept(tmp_path):
    write_files(tmp_path, PACKAGE)
    found = break_statuses(cli_findings(tmp_path, "check", "relgraph", "--show-refuted", cache=tmp_path / "cache"))
    assert ("BRK104", "layer.py", 21, "confirmed") in found  # int(counts.max()) in the else arm
    assert not {f for f in found if f[3] in ("refuted", "observed")}
