"""Phase B's work order: files whose checks read each other's trees go to one worker and are
parsed once there (engine.affinity_groups, engine._SHARED), with the same findings as before."""

from __future__ import annotations

from pathlib import Path

from breakscan.catalog import load_catalog
from breakscan.static import engine
from breakscan.static.engine import affinity_groups, scan_files
from tests.conftest import rule_lines, write_files

# ops.scale is traced from Model.forward: its parameter's kind comes from model.py's call site,
# and model.py's `y` is what scale returns given a tensor; each check reads the other file.
LINKED = {
    "pkg/__init__.py": "",
    "pkg/ops.py": """
        import torch

        def scale(t):
            if t.dim() > 1:
                return t * 2
            return t
    """,
    "pkg/model.py": """
        import torch
        from torch import nn
        from .ops import scale

        class Model(nn.Module):
            def forward(self, x):
                y = scale(x)
                if y.sum() > 0:
                    return y
                return -y
    """,
}


def _parse_counter(monkeypatch) -> list[str]:
    """The libcst parses of the scan (one entry per parse, its first line), in this process."""
    parses: list[str] = []
    real = engine.parse_unvalidated

    def counted(source):
        text = source.decode() if isinstance(source, bytes) else source
        parses.append(text.strip().splitlines()[0] if text.strip() else "")
        return real(source)

    monkeypatch.setattr(engine, "parse_unvalidated", counted)
    return parses


def test_linked_files_are_parsed_once_each_with_their_findings(tmp_path, monkeypatch):
    paths = write_files(tmp_path, LINKED)
    parses = _parse_counter(monkeypatch)
    found = scan_files(paths, list(load_catalog().values()), jobs=1).findings
    # the branch on what scale returns (a tensor) in model.py, found through ops.py's return
    assert ("BRK101", 9) in rule_lines(f for f in found if f.path.endswith("model.py")), found
    # ops.py and model.py hold regions; each check reads the other's tree: two parses, not four
    assert len(parses) == 2, parses


def _key(path: str, name: str) -> tuple[str, str, int]:
    return (path, name, 0)


def test_affinity_groups_keep_linked_files_together_and_a_hub_from_joining_everything():
    paths = [Path(f"/p/m{i}.py") for i in range(12)] + [Path("/p/hub.py")]
    callers = {}
    # pairs m0-m1, m2-m3, ... call each other; every file's function is called from the hub
    for i in range(0, 12, 2):
        callers[_key(f"/p/m{i}.py", "f")] = (_key(f"/p/m{i + 1}.py", "g"), _key("/p/hub.py", "h"))
        callers[_key(f"/p/m{i + 1}.py", "g")] = (_key("/p/hub.py", "h"),)
    groups, read = affinity_groups(paths, callers, {}, limit=4)
    assert sorted(p for g in groups for p in g) == sorted(paths)  # each file once
    assert all(len(g) <= 4 for g in groups), groups
    for i in range(0, 12, 2):  # the rarely linked pairs are joined first; the hub's links fill up
        assert any(Path(f"/p/m{i}.py") in g and Path(f"/p/m{i + 1}.py") in g for g in groups), groups
    assert read == {str(p) for p in paths}
    assert len(groups) < len(paths)


def test_the_order_within_and_between_unlinked_files_is_kept():
    paths = [Path(f"/p/m{i}.py") for i in range(5)]
    groups, read = affinity_groups(paths, {_key("/p/m3.py", "f"): (_key("/p/m1.py", "g"),)}, {}, limit=8)
    assert groups == [[paths[0]], [paths[1], paths[3]], [paths[2]], [paths[4]]]
    assert read == {"/p/m1.py", "/p/m3.py"}


def test_grouped_parallel_checks_give_the_serial_findings(tmp_path, monkeypatch):
    files = dict(LINKED)
    for i in range(20):  # enough files for a pool, in linked pairs
        files[f"pkg/ops{i}.py"] = LINKED["pkg/ops.py"].replace("scale", f"scale{i}")
        files[f"pkg/model{i}.py"] = (LINKED["pkg/model.py"].replace("scale", f"scale{i}")
                                     .replace(".ops", f".ops{i}").replace("Model", f"Model{i}"))
    paths = write_files(tmp_path, files)
    monkeypatch.setattr(engine, "PARALLEL_MIN_FILES", 1)
    serial = scan_files(paths, list(load_catalog().values()), jobs=1)
    parallel = scan_files(paths, list(load_catalog().values()), jobs=2)
    assert [f.to_dict() for f in parallel.findings] == [f.to_dict() for f in serial.findings]
    assert sum(f.rule_id == "BRK101" and "model" in f.path for f in serial.findings) == 21
