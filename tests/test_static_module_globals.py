"""Module-level globals inside compile regions: a tensor, a Python value, a list or dict of tensors.

Dynamo reads a global like a local (a global tensor is a graph input), so the tensor rules fire
on it as on a local: measured on torch 2.13 (backend "eager"), `if MASK.any():` breaks (GB0170),
`int(FLAG)` and `.item()` break (GB0124). A global re-bound anywhere (a second binding, `global`
in a function, `consts.X = ...` from another module) or a container changed in place keeps an
unknown kind: nothing is predicted for it, and the dynamic run shows why (it holds a Python value
by the time the region runs).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import break_statuses, cli_findings, located, requires_torch, write_files

PACKAGE = {
    "net/__init__.py": "",
    "net/consts.py": """\
        import torch

        MASK = torch.ones(4).bool()
        SCALE = 0.5
        WEIGHTS = [torch.ones(4), torch.full((4,), 2.0)]
        BUFFERS = {"shift": torch.zeros(4)}
        FLAG = torch.tensor(1)
        THRESHOLD = torch.tensor(0.5)
        COUNT = torch.zeros(1)
        CACHE = {"scale": torch.ones(1)}
        LIMIT = torch.tensor(3)
        LIMIT = 3


        def reset():
            global COUNT
            COUNT = 0


        reset()
        CACHE["scale"] = 2.0
    """,
    "net/settings.py": """\
        from . import consts

        consts.THRESHOLD = 0.25
    """,
    "net/blocks.py": """\
        from torch import nn

        from . import consts, settings
        from .consts import BUFFERS, CACHE, COUNT, FLAG, LIMIT, MASK, SCALE, WEIGHTS


        def gate(x, MASK):
            if MASK:
                return x
            return x * 2


        class Masked(nn.Module):
            def forward(self, x):
                if MASK.any():
                    x = x * SCALE
                return x * WEIGHTS[1].max().item()


        class Shifted(nn.Module):
            def forward(self, x):
                x = x + BUFFERS["shift"]
                return x * int(FLAG)


        class Rebound(nn.Module):
            def forward(self, x):
                if consts.THRESHOLD > 0.3:
                    x = x + 1
                if COUNT > 0:
                    x = x - 1
                if LIMIT > 2:
                    x = x * 3
                return gate(x, False) * CACHE["scale"]
    """,
    "net/run.py": """\
        import torch

        from .blocks import Masked, Rebound, Shifted


        def breakscan_examples():
            x = torch.randn(2, 4)
            yield Masked(), (x,)
            yield Shifted(), (x,)
            yield Rebound(), (x,)
    """,
}
GLOBAL_BREAKS = {
    ("BRK101", "blocks.py", 15),  # if MASK.any(): a global tensor (imported with a relative import)
    ("BRK102", "blocks.py", 17),  # WEIGHTS[1].max().item(): an element of a global list of tensors
    ("BRK104", "blocks.py", 23),  # int(FLAG)
}  # Rebound: THRESHOLD (set by settings.py), COUNT (`global`), LIMIT (bound twice) and CACHE
# (changed in place) are Python values when the region runs; `gate`'s parameter shadows MASK.


def test_global_tensors_lists_and_dicts_take_their_kind_in_a_region(tmp_path: Path) -> None:
    write_files(tmp_path, PACKAGE)
    assert located(cli_findings(tmp_path, "net", "--no-dynamic", "--no-cache")) == GLOBAL_BREAKS


@pytest.mark.dynamic
@requires_torch
def test_dynamo_confirms_breaks_on_module_globals_and_none_on_rebound_ones(tmp_path: Path) -> None:
    write_files(tmp_path, PACKAGE)
    findings = cli_findings(tmp_path, "net", "--no-cache", "--backend", "eager")
    assert break_statuses(findings) == {(*p, "confirmed") for p in GLOBAL_BREAKS}


def test_a_global_in_the_same_file_and_a_local_that_shadows_it(tmp_path: Path) -> None:
    write_files(tmp_path, {"model.py": """\
        import torch

        TABLE = torch.arange(4)
        OFFSET = TABLE * 2


        @torch.compile
        def lookup(x):
            if OFFSET.sum() > 3:
                x = x + 1
            return x


        @torch.compile
        def shadowed(x):
            for TABLE in ([1], [2]):
                if TABLE:
                    x = x + 1
            return x
    """})
    assert located(cli_findings(tmp_path, "model.py", "--no-dynamic", "--no-cache")) == {
        ("BRK101", "model.py", 9)}
