"""The result cache: same findings warm as cold, invalidated by content, never trusted blindly."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from breakscan.catalog import load_catalog
from breakscan.static import cache as cache_module
from breakscan.static.cache import Cache
from breakscan.static.engine import scan_files
from tests.conftest import ROOT, rule_lines, write_files

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


# The SQLite store: small, pruned, bounded, shared by concurrent processes -------------------------

BREAKSCAN = [sys.executable, "-m", "breakscan"]


def _cli(args: list[str], cwd: Path, cache_dir: Path, **kwargs) -> subprocess.CompletedProcess:
    """`breakscan ARGS` in its own process, as a user (or pre-commit) runs it."""
    env = {**os.environ, "BREAKSCAN_CACHE_DIR": str(cache_dir), "PYTHONPATH": str(ROOT)}
    return subprocess.run([*BREAKSCAN, *args], cwd=cwd, env=env, capture_output=True, text=True, **kwargs)


def _project(root: Path, n: int, tag: str) -> list[Path]:
    """A package of `n` modules, each a module whose forward breaks on `.item()`."""
    files = {"pkg/__init__.py": ""}
    for i in range(n):
        files[f"pkg/m{i}.py"] = FILES["pkg/layers.py"].replace("Inner", f"{tag}Inner{i}")
    return write_files(root, files)


def test_a_file_deleted_from_disk_is_pruned_from_the_cache(tmp_path):
    paths = write_files(tmp_path / "src", FILES)
    _scan(paths, Cache(tmp_path / "cache"))
    (tmp_path / "src" / "pkg" / "model.py").unlink()
    cache = Cache(tmp_path / "cache", clock=lambda: time.time() + 2 * 86400)
    assert cache.sweep() == 1  # rows are re-checked against the disk once a day
    assert cache.stats()["indexes"] == 2 and cache.stats()["checks"] == 1
    assert cache.get_index(tmp_path / "src" / "pkg" / "layers.py") is not None


def test_an_edited_file_keeps_one_index_row_and_drops_its_stale_findings(tmp_path):
    paths = write_files(tmp_path / "src", FILES)
    _scan(paths, Cache(tmp_path / "cache"))
    layers = tmp_path / "src" / "pkg" / "layers.py"
    for k in range(3):
        layers.write_text(layers.read_text() + f"\nX{k} = {k}\n")
        _scan(paths, Cache(tmp_path / "cache"))
    stats = Cache(tmp_path / "cache").stats()
    assert stats["indexes"] == 3 and stats["checks"] == 2  # one row per file, not per version


def test_a_file_whose_package_changed_is_indexed_again(tmp_path):
    paths = write_files(tmp_path / "src", {"pkg/model.py": FILES["pkg/model.py"]})
    _scan(paths, Cache(tmp_path / "cache"))
    assert Cache(tmp_path / "cache").get_index(paths[0]).info.name == "model"
    (tmp_path / "src" / "pkg" / "__init__.py").write_text("")  # now `pkg.model`: `.layers` resolves
    assert Cache(tmp_path / "cache").get_index(paths[0]) is None
    _scan(paths, Cache(tmp_path / "cache"))
    assert Cache(tmp_path / "cache").get_index(paths[0]).info.name == "pkg.model"


def test_least_recently_used_rows_are_evicted_beyond_the_size_bound(tmp_path):
    old = _project(tmp_path / "old", 60, "Old")
    new = _project(tmp_path / "new", 60, "New")
    rules = list(load_catalog().values())
    unbounded = Cache(tmp_path / "probe")
    scan_files(old, rules, cache=unbounded)
    one_project = unbounded.stats()["bytes"]
    bound = int(one_project * 1.5)  # room for one project, not two
    scan_files(old, rules, cache=Cache(tmp_path / "cache", max_bytes=bound, clock=lambda: time.time() - 3 * 3600))
    assert _scan(new, Cache(tmp_path / "cache", max_bytes=bound)).cache_hits == 0
    bounded = Cache(tmp_path / "cache", max_bytes=bound)
    assert bounded.stats()["bytes"] <= bound
    assert _scan(new, Cache(tmp_path / "cache", max_bytes=bound)).cache_hits == 60  # the newer stayed
    assert sum(bounded.get_index(p) is not None for p in old) < len(old) // 2  # the older went


def test_a_file_read_recently_outlives_one_written_later_but_not_read_since(tmp_path):
    a, b, c = (_project(tmp_path / name, 40, name.upper()) for name in ("a", "b", "c"))
    rules = list(load_catalog().values())
    scan_files(a, rules, cache=Cache(tmp_path / "probe"))
    one = Cache(tmp_path / "probe").stats()["bytes"]
    scan_files(b, rules, cache=Cache(tmp_path / "probe"))
    two = Cache(tmp_path / "probe").stats()["bytes"]
    bound = two + (two - one) // 2  # room for two projects and a half

    def at(hours_ago: float) -> Cache:
        return Cache(tmp_path / "cache", max_bytes=bound, clock=lambda: time.time() - hours_ago * 3600)

    scan_files(a, rules, cache=at(3))
    scan_files(b, rules, cache=at(2))
    assert scan_files(a, rules, cache=at(1)).cache_hits == 40  # `a` read again: its last use moves on
    scan_files(c, rules, cache=at(0))
    cache = at(0)
    assert cache.stats()["bytes"] <= bound
    kept = {name: sum(cache.get_index(p) is not None for p in paths) for name, paths in zip("abc", (a, b, c))}
    assert kept["c"] == 41 and kept["b"] < 20 and kept["a"] > kept["b"], kept


def test_two_processes_writing_the_cache_at_once_lose_nothing(tmp_path):
    cache_dir = tmp_path / "cache"
    a = _project(tmp_path / "a", 40, "A")
    b = _project(tmp_path / "b", 40, "B")
    env = {**os.environ, "BREAKSCAN_CACHE_DIR": str(cache_dir), "PYTHONPATH": str(ROOT)}
    args = ["--no-dynamic", "--exit-zero", "--jobs", "1", "-f", "json"]
    procs = [subprocess.Popen([*BREAKSCAN, *args, str(root)], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
             for root in (tmp_path / "a", tmp_path / "b", tmp_path / "a")]  # `a` twice: the same rows too
    outputs = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], outputs
    assert all(len(json.loads(out)["findings"]) == 40 for out, _ in outputs)
    assert not any(err.strip() for _, err in outputs)
    db = sqlite3.connect(Cache(cache_dir).path)
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    db.close()
    cache = Cache(cache_dir)
    assert cache.stats()["indexes"] == 82 and cache.stats()["checks"] == 80  # every file's, once
    assert all(cache.get_index(p) is not None for p in a + b)


WRITER = """
import sys, time
from pathlib import Path
from breakscan.static.cache import Cache
from breakscan.static.engine import index_file

paths = [Path(p) for p in sys.argv[2:]]
for i in range(0, len(paths), 2):  # many small transactions, interleaving with the other process's
    cache = Cache(Path(sys.argv[1]))
    for path in paths[i:i + 2]:
        cache.put_index(index_file(path))
        cache.put_findings(str(path), "k", [])
    cache.save()
"""


def test_two_processes_committing_many_small_transactions_at_once_lose_no_row(tmp_path):
    a = _project(tmp_path / "a", 150, "A")
    b = _project(tmp_path / "b", 150, "B")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path / "cache"), *map(str, paths)], env=env,
                              stderr=subprocess.PIPE, text=True) for paths in (a, b)]
    errors = [p.communicate(timeout=600)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0] and errors == ["", ""], errors
    cache = Cache(tmp_path / "cache")
    assert cache.stats()["indexes"] == 302 and cache.stats()["checks"] == 302
    assert all(cache.get_index(p) is not None for p in a + b)


def test_a_database_locked_beyond_the_timeout_gives_misses_and_the_run_still_saves(tmp_path, monkeypatch):
    # Another process holds the database (a real SQLite lock: exclusive locking mode) while this
    # run opens it and reads: the reads are misses after the busy timeout, and once the lock is
    # gone the run's save commits its rows (a busy open used to turn the cache off for the whole
    # run, silently: its rows were lost).
    paths = write_files(tmp_path / "src", FILES)
    _scan(paths, Cache(tmp_path / "cache"))
    monkeypatch.setattr(cache_module, "BUSY_TIMEOUT_S", 0.3)
    blocker = sqlite3.connect(Cache(tmp_path / "cache").path, isolation_level=None)
    blocker.execute("PRAGMA locking_mode=EXCLUSIVE")
    blocker.execute("BEGIN EXCLUSIVE")
    blocker.execute("DELETE FROM checks")
    blocker.execute("COMMIT")  # the exclusive lock stays until the connection closes
    cache = Cache(tmp_path / "cache")
    started = time.monotonic()
    assert cache.get_index(paths[0]) is None and cache.get_findings(str(paths[0]), "k") is None
    assert time.monotonic() - started < 2  # one wait of the timeout, not one per read or retry
    blocker.close()
    cache.put_findings(str(paths[0]), "k", [])
    cache.save()
    assert Cache(tmp_path / "cache").get_findings(str(paths[0]), "k") == []


def test_a_corrupt_cache_file_is_replaced_with_a_warning_not_a_crash(tmp_path):
    paths = write_files(tmp_path / "src", FILES)
    cache_dir = tmp_path / "cache"
    args = ["--no-dynamic", "-f", "json", str(tmp_path / "src")]
    first = _cli(args, tmp_path, cache_dir)
    db_path = Cache(cache_dir).path
    db_path.write_bytes(b"this is not a database" * 500)
    second = _cli(args, tmp_path, cache_dir)
    assert second.returncode == first.returncode == 1
    assert json.loads(second.stdout)["findings"] == json.loads(first.stdout)["findings"]
    assert "warning: result cache" in second.stderr and "is corrupt" in second.stderr
    third = _cli(args, tmp_path, cache_dir)
    assert third.stderr == ""
    assert all(Cache(cache_dir).get_index(p) is not None for p in paths)


def test_a_cache_damaged_inside_is_replaced_with_a_warning(tmp_path):
    paths = write_files(tmp_path / "src", FILES)
    _scan(paths, Cache(tmp_path / "cache"))
    db_path = Cache(tmp_path / "cache").path
    data = bytearray(db_path.read_bytes())
    data[4096:] = b"\xff" * (len(data) - 4096)  # the header page stays whole; every table page is garbage
    db_path.write_bytes(bytes(data))
    warnings: list[str] = []
    result = _scan(paths, Cache(tmp_path / "cache", warn=warnings.append))
    assert rule_lines(result.findings) == {("BRK102", 7), ("BRK201", 12)}
    assert warnings and "corrupt" in warnings[0]
    assert _scan(paths, Cache(tmp_path / "cache", warn=warnings.append)).cache_hits == 2


def test_a_warm_text_report_imports_no_libcst(tmp_path):
    write_files(tmp_path, FILES)
    _cli(["--no-dynamic", "pkg"], tmp_path, tmp_path / "cache")
    probe = ("import sys\nfrom breakscan.cli import main\nsys.argv = ['breakscan', '--no-dynamic', 'pkg']\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\nprint('libcst' in sys.modules, file=sys.stderr)")
    env = {**os.environ, "BREAKSCAN_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    warm = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert warm.stderr.strip().endswith("False"), warm.stderr
    assert "[*]" in warm.stdout  # the rewrite of BRK201's print came from the cache


def test_a_default_run_over_files_without_examples_imports_no_torch_and_no_dynamic_runner(tmp_path):
    # Start-up cost of the one-file run (pre-commit, an editor): the dynamic pass is on by default,
    # but without a breakscan_examples() there is nothing to run, so neither torch nor the dynamic
    # runner is imported; files named one by one need no .gitignore matching (pathspec).
    write_files(tmp_path, FILES)
    probe = ("import sys\nfrom breakscan.cli import main\n"
             "sys.argv = ['breakscan', 'pkg/model.py', 'pkg/layers.py']\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\n"
             "print(sorted(m for m in ('torch', 'breakscan.dynamic.runner', 'pathspec') if m in sys.modules),"
             " file=sys.stderr)")
    env = {**os.environ, "BREAKSCAN_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert "BRK102" in run.stdout and "BRK201" in run.stdout, run.stdout
    assert run.stderr.strip().splitlines()[-1] == "[]", run.stderr


def test_a_cold_run_of_a_few_files_loads_no_process_pool_and_exits_cleanly(tmp_path):
    # A process pool starts from engine.PARALLEL_MIN_FILES files: below that, multiprocessing and
    # concurrent.futures are never imported (about 0.01 CPU s of a one-file run), nor tempfile
    # (`--fix` writes through it). The heap frozen at exit (cli.main) must keep the report whole
    # and the cache's rows committed.
    write_files(tmp_path, FILES)
    probe = ("import sys\nfrom breakscan.cli import main\n"
             "sys.argv = ['breakscan', '--no-dynamic', 'pkg/model.py', 'pkg/layers.py']\n"
             "try:\n    main()\nfinally:\n"
             "    print(sorted(m for m in ('multiprocessing', 'concurrent.futures', 'tempfile') if m in sys.modules),"
             " file=sys.stderr)")
    env = {**os.environ, "BREAKSCAN_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    cold = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert cold.returncode == 1, cold.stderr
    assert "BRK102" in cold.stdout and "BRK201" in cold.stdout and "[*]" in cold.stdout, cold.stdout
    assert cold.stderr.strip().splitlines()[-1] == "[]", cold.stderr
    rows = Cache(tmp_path / "cache").stats()
    assert rows["indexes"] == 2 and rows["checks"] == 2 and rows["fixes"] >= 1, rows
    warm = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert warm.stdout == cold.stdout


def test_the_old_whole_project_pickles_are_removed_when_the_database_is_made(tmp_path):
    old = tmp_path / "cache" / "0123456789abcdef0123.pickle"
    old.parent.mkdir()
    old.write_bytes(b"\x80\x04" + b"x" * 1000)
    mine = tmp_path / "cache" / "notes.pickle"
    mine.write_bytes(b"kept")
    _scan(write_files(tmp_path / "src", FILES), Cache(tmp_path / "cache"))
    assert not old.exists() and mine.exists()
