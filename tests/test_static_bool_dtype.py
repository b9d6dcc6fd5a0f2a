"""A tensor made with `dtype=torch.bool` (`torch.zeros(n, dtype=torch.bool)`, `x.new_ones(n,
dtype=torch.bool)`, `x.to(torch.bool)`) holds booleans, so indexing with it is a boolean mask
(GB0036). A helper in another file annotated `-> Tuple[Tensor, Tensor]` keeps its annotation,
refined by its body where that shows an element is such a mask (`h, mask = to_dense(x, batch)`),
also when an unknown decorator wraps it. Checked through the CLI against Dynamo on a package
with relative imports; an integer index made the same way is not a mask."""

from __future__ import annotations

from tests.conftest import break_statuses, cli_findings, requires_torch, static_findings, write_files

PACKAGE = {
    "pk/__init__.py": "",
    "pk/util.py": '''
        import functools
        from typing import Tuple

        import torch
        from torch import Tensor


        def checked(fn):
            @functools.wraps(fn)
            def wrapper(*args, **kwargs):
                return fn(*args, **kwargs)
            return wrapper


        @checked
        def to_dense(x: Tensor, batch: Tensor) -> Tuple[Tensor, Tensor]:
            n = x.size(0)
            mask = torch.zeros(n, dtype=torch.bool, device=x.device)
            mask[batch] = 1
            return x.unsqueeze(0), mask.view(1, n)


        def positions(x: Tensor, batch: Tensor) -> Tuple[Tensor, Tensor]:
            idx = torch.zeros(batch.numel(), dtype=torch.long)
            return x.unsqueeze(0), idx + batch
        ''',
    "pk/model.py": '''
        import torch

        from .util import positions, to_dense


        class Dense(torch.nn.Module):
            def forward(self, x, batch):
                h, mask = to_dense(x, batch)
                return h[mask]


        class Flags(torch.nn.Module):
            def forward(self, x, batch):
                keep = x.new_zeros(x.size(0), dtype=torch.bool)
                keep[batch] = True
                picked = x[keep]
                return picked.sum() + x[x[:, 0].long().to(torch.bool)].sum()


        class Gather(torch.nn.Module):
            def forward(self, x, batch):
                h, idx = positions(x, batch)
                return h[0, idx]


        def breakscan_examples():
            x, batch = torch.randn(5, 3), torch.tensor([0, 2])
            yield Dense(), (x, batch)
            yield Flags(), (x, batch)
            yield Gather(), (x, batch)
        ''',
}


def test_bool_dtype_tensors_are_masks(tmp_path):
    found = {(f.rule_id, f.line) for f in static_findings(tmp_path, PACKAGE) if f.path.endswith("model.py")}
    assert ("BRK106", 10) in found, found  # h[mask]: refined from to_dense's body
    assert ("BRK106", 17) in found, found  # x[keep]: x.new_zeros(..., dtype=torch.bool)
    assert ("BRK106", 18) in found, found  # x[....to(torch.bool)]
    assert not {f for f in found if f[1] >= 19}, found  # h[0, idx]: an integer index


@requires_torch
def test_dynamo_confirms_the_bool_dtype_masks(tmp_path):
    write_files(tmp_path, PACKAGE)
    found = break_statuses(cli_findings(tmp_path, "check", "pk", "--show-refuted", cache=tmp_path / "cache"))
    for line in (10, 17, 18):
        assert ("BRK106", "model.py", line, "confirmed") in found, found
    assert not {f for f in found if f[3] in ("refuted", "observed")}, found
