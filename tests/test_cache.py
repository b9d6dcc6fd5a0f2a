"""The result cache: same findings warm as cold, invalidated by content, never trusted blindly."""

from __future__ import annotations

from breakscan.catalog import load_catalog
from breakscan.static.cache import Cache
from breakscan.static.engine import scan_files
from tests.conftest import rule_lines, write_files

FILES = {
    "pkg/__init__.py": "",
    "pkg/layers.py": """
        import torch
        from torch import nn

        class Inner(nn.Module):
            def forward(self, x):
                return x * x.sum().item()
    """,
    "pkg/model.py": """
        import torch
        from torch import nn
        from .layers import Inner

        class Outer(nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = Inner()

            def forward(self, x):
                print("step")
                return self.inner(x)
    """,
}


def _scan(paths, cache):
    return scan_files(paths, list(load_catalog().values()), cache=cache)


def test_warm_scan_equals_cold_and_reads_from_cache(tmp_path):
    paths = write_files(tmp_path / "src", FILES)
    cold = _scan(paths, Cache(tmp_path / "cache"))
    warm = _scan(paths, Cache(tmp_path / "cache"))
    assert [f.to_dict() for f in warm.findings] == [f.to_dict() for f in cold.findings]
    assert cold.cache_hits == 0 and warm.cache_hits == 2
    assert rule_lines(warm.findings) == {("BRK102", 7), ("BRK201", 12)}


def test_an_edited_file_is_checked_again_and_others_come_from_cache(tmp_path):
    paths = write_files(tmp_path / "src", FILES)
    _scan(paths, Cache(tmp_path / "cache"))
    model = tmp_path / "src" / "pkg" / "model.py"
    model.write_text(model.read_text().replace('print("step")', "pass"))
    again = _scan(paths, Cache(tmp_path / "cache"))
    assert rule_lines(again.findings) == {("BRK102", 7)}
    assert again.cache_hits == 1


def test_a_corrupt_cache_is_ignored_and_rewritten(tmp_path):
    paths = write_files(tmp_path / "src", FILES)
    cache = Cache(tmp_path / "cache")
    _scan(paths, cache)
    cache.path.write_bytes(b"\x80\x04not a pickle at all")
    result = _scan(paths, Cache(tmp_path / "cache"))
    assert rule_lines(result.findings) == {("BRK102", 7), ("BRK201", 12)}
    assert _scan(paths, Cache(tmp_path / "cache")).cache_hits == 2


def test_a_foreign_pickle_is_ignored(tmp_path):
    paths = write_files(tmp_path / "src", FILES)
    cache = Cache(tmp_path / "cache")
    cache.path.parent.mkdir(parents=True)
    import pickle

    cache.path.write_bytes(pickle.dumps({"format": 999, "index": "nonsense"}))
    assert rule_lines(_scan(paths, Cache(tmp_path / "cache")).findings) == {("BRK102", 7), ("BRK201", 12)}


def test_parallel_scan_gives_the_same_findings_as_in_process(tmp_path, monkeypatch):
    import breakscan.static.engine as engine

    files = {f"pkg{i}/__init__.py": "" for i in range(3)}
    for i in range(3):
        for j in range(30):
            files[f"pkg{i}/m{j}.py"] = FILES["pkg/layers.py"].replace("Inner", f"Inner{j}")
    paths = write_files(tmp_path, files)
    monkeypatch.setattr(engine, "PARALLEL_MIN_FILES", 1)
    serial = scan_files(paths, list(load_catalog().values()), jobs=1)
    parallel = scan_files(paths, list(load_catalog().values()), jobs=2)
    assert [f.to_dict() for f in parallel.findings] == [f.to_dict() for f in serial.findings]
    assert len(serial.findings) == 90
