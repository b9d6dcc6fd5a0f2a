"""Costs of the static pass that its results do not show: syntax trees freed by reference counting."""

from __future__ import annotations

import gc

import libcst as cst

from breakscan.catalog import load_catalog
from breakscan.static import engine
from breakscan.static.engine import scan_files
from tests.conftest import write_files

PACKAGE = {
    "pkg/__init__.py": "",
    "pkg/helpers.py": """
        import torch

        def scale(x, factor):
            if factor > 1:
                print("scaling", factor)
            return x * factor
    """,
    "pkg/model.py": """
        import torch
        from torch import nn
        from .helpers import scale

        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(4, 4)

            def _norm(self, x):
                return x / x.sum().item()

            def forward(self, x):
                for _ in range(2):
                    x = self._norm(self.proj(x))
                return scale(x, 2)

        model = torch.compile(Block())
    """,
}


def test_a_scan_leaves_no_syntax_tree_to_the_cyclic_garbage_collector(tmp_path):
    # A tree kept alive by a reference cycle (a recursive closure holding a dict of its defs) is
    # freed only when the cyclic GC walks it: on transformers that walk was a tenth of phase B.
    paths = write_files(tmp_path, PACKAGE)
    rules = list(load_catalog().values())
    scan_files(paths, rules)  # first use: imports and per-type caches are not garbage
    engine._RECENT.clear()
    was_enabled = gc.isenabled()
    gc.disable()
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        findings = scan_files(paths, rules).findings
        engine._RECENT.clear()  # the trees kept on purpose for the `[*]` rewrites
        gc.collect()
        trees = [o for o in gc.garbage if isinstance(o, cst.CSTNode)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was_enabled:
            gc.enable()
    assert {f.rule_id for f in findings} >= {"BRK102", "BRK201"}, findings
    assert not trees, f"{len(trees)} libcst nodes freed only by the cyclic GC"
