"""Code a skipped frame runs eagerly installs no guards: `self.steps += 1` after a loop whose body
broke (a submodule's data-dependent branch) is no recompile, so its BRK504 is dropped with the
graph breaks of those lines (breakscan.static.frames). Without the break, Dynamo traces it and
recompiles on every new count (BRK504 confirmed, then the recompile limit). Checked with
`breakscan run` against Dynamo."""

from __future__ import annotations

import pytest

from tests.conftest import located, requires_torch, rule_lines, run_findings, static_findings, write_files

MODEL = '''
    import torch
    from torch import nn


    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, x):
            if torch.isnan(x).any():
                x = torch.nan_to_num(x)
            return self.lin(x)


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = nn.ModuleList([Block(), Block()])
            self.steps = 0

        def forward(self, x):
            for blk in self.blocks:
                x = blk(x)
            self.steps += 1
            return x


    net = torch.compile(Net(), backend="eager")

    if __name__ == "__main__":
        for _ in range(10):
            net(torch.randn(2, 4))
    '''
NO_BREAK = MODEL.replace("if torch.isnan(x).any():", "if x.shape[0] > 100:")


def test_a_recompile_on_a_line_the_skipped_frame_runs_eagerly_is_dropped(tmp_path):
    assert rule_lines(static_findings(tmp_path, {"model.py": MODEL})) == {("BRK101", 12)}
    assert rule_lines(static_findings(tmp_path / "whole", {"model.py": NO_BREAK})) == {("BRK504", 26)}


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
@pytest.mark.parametrize("source,expected,absent", [
    (MODEL, ("BRK101", "model.py", 12, "confirmed"), "BRK504"),
    (NO_BREAK, ("BRK504", "model.py", 26, "confirmed"), "BRK101"),
])
def test_dynamo_agrees(tmp_path, source, expected, absent):
    write_files(tmp_path, {"model.py": source})
    statuses = {(*located([f]).pop(), f["status"]) for f in run_findings(tmp_path, "model.py")}
    assert expected in statuses, statuses
    assert not {s for s in statuses if s[0] == absent}, statuses
