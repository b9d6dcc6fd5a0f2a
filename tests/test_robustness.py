"""Issue 7: the static pass survives any file, reports each problem as one error finding with a
one-line reason, and the rest of the run goes on. Exercised through `scan_files` and the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from breakscan.catalog import load_catalog
from breakscan.static import walk
from breakscan.static.engine import scan_files

from conftest import ROOT

GOOD = """\
import torch

class Model(torch.nn.Module):
    def forward(self, x):
        return x.item()
"""  # BRK102 on line 5

# name -> (bytes, expected: "ok" scanned without error | "BRK901" an error finding)
CASES: dict[str, tuple[bytes, str]] = {
    "syntax_error.py": (b"def f(:\n    pass\n", "BRK901"),
    "python2.py": (b'print "hello"\nexec "x = 1"\nraise ValueError, "no"\n', "BRK901"),
    "latin1_cookie.py": (b"# -*- coding: latin-1 -*-\nname = '\xe9t\xe9'\n" + GOOD.encode(), "ok"),
    "latin1_no_cookie.py": (b"name = '\xe9t\xe9'\n", "BRK901"),
    "bad_cookie.py": (b"# -*- coding: no-such-codec -*-\nx = 1\n", "BRK901"),
    "bom.py": (b"\xef\xbb\xbf" + GOOD.encode(), "ok"),
    "bom_and_cookie_clash.py": (b"\xef\xbb\xbf# -*- coding: latin-1 -*-\nx = 1\n", "BRK901"),
    "nul_bytes.py": (b"x = 1\x00\ny = 2\n", "BRK901"),
    "crlf.py": (GOOD.replace("\n", "\r\n").encode(), "ok"),
    "mixed_endings.py": (b"import torch\r\nclass M(torch.nn.Module):\n    def forward(self, x):\r"
                         b"        return x.item()\r\n", "ok"),
    "tabs.py": (GOOD.replace("    ", "\t").encode(), "ok"),
    "tabs_and_spaces.py": (b"def f():\n\tif 1:\n        return 1\n", "BRK901"),
    "empty.py": (b"", "ok"),
    "only_comment.py": (b"# nothing here", "ok"),
    "no_trailing_newline.py": (GOOD.rstrip("\n").encode(), "ok"),
    "stub.pyi": (b"import torch\nclass M(torch.nn.Module):\n    def forward(self, x: torch.Tensor) -> float: ...\n",
                 "ok"),
    "parens_5000.py": (b"x = " + b"(" * 5000 + b"1" + b")" * 5000 + b"\n", "BRK901"),
    "calls_3000.py": (b"x = " + b"f(" * 3000 + b"1" + b")" * 3000 + b"\n", "BRK901"),
    "unary_100000.py": (b"x = " + b"-" * 100_000 + b"1\n", "BRK901"),
    "binop_20000.py": (b"x = " + b"+".join([b"a"] * 20_000) + b"\n", "BRK901"),
    # CPython accepts it, libcst's parser does not: an honest BRK901 naming libcst (the model is lost)
    "strcat_5000_libcst_limit.py": (GOOD.encode() + b"S = " + b" ".join([b"'a'"] * 5000) + b"\n", "BRK901"),
    "lone_surrogate_escape.py": (b"s = '\\ud800'\n" + GOOD.encode(), "ok"),
    "form_feed.py": (b"\x0cimport torch\n\x0c\nx = 1\n", "ok"),
    "unicode_names.py": ("import torch\nclass Mödel(torch.nn.Module):\n    def forward(self, ẋ):\n"
                         "        return ẋ.item()\n".encode(), "ok"),
    "match_and_walrus.py": (b"def f(p):\n    match p:\n        case {'a': [1, *rest]} if (n := len(rest)):\n"
                            b"            return n\n", "ok"),
}


@pytest.fixture(scope="module")
def rules():
    return list(load_catalog().values())


def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def _assert_one_line_errors(findings) -> None:
    for f in findings:
        if f.kind.value == "error":
            assert f.rule_id in ("BRK900", "BRK901"), f
            assert "\n" not in f.message and f.message, f
            assert f.line >= 1 and f.column >= 1


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_file_is_scanned_or_reported(tmp_path, rules, name):
    data, expected = CASES[name]
    path = _write(tmp_path, name, data)
    good = _write(tmp_path, "zz_good.py", GOOD.encode())
    result = scan_files([path, good], rules)
    _assert_one_line_errors(result.findings)
    mine = [f for f in result.findings if Path(f.path) == path]
    errors = [f for f in mine if f.kind.value == "error"]
    if expected == "ok":
        assert not errors, errors
    else:
        assert [f.rule_id for f in errors] == [expected], mine
    assert ("BRK102", 5) in {(f.rule_id, f.line) for f in result.findings if Path(f.path) == good}
    assert not [f for f in result.findings if f.rule_id == "BRK900"]


@pytest.mark.parametrize("name", ["latin1_cookie.py", "bom.py", "crlf.py", "tabs.py", "no_trailing_newline.py"])
def test_encodings_and_line_endings_keep_the_finding(tmp_path, rules, name):
    """The model inside still gets its BRK102, on the right line."""
    path = _write(tmp_path, name, CASES[name][0])
    found = {(f.rule_id, f.line) for f in scan_files([path], rules).findings}
    line = 5 + (2 if name == "latin1_cookie.py" else 0)
    assert ("BRK102", line) in found


def test_deep_but_legal_code_is_checked_not_rejected(tmp_path, rules):
    """Nesting CPython accepts (a 2,000-term sum, 2,000 unary minuses) is scanned in full:
    libcst and the walkers run with a big stack and recursion limit (no segfault, no RecursionError)."""
    head = "import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n        y = "
    sources = {"sum.py": head + " + ".join(["x"] * 2000) + "\n        return y.item()\n",
               "neg.py": head + "-" * 2000 + "x\n        return y.item()\n"}
    paths = [_write(tmp_path, n, s.encode()) for n, s in sources.items()]
    limit = sys.getrecursionlimit()
    findings = scan_files(paths, rules).findings
    assert sys.getrecursionlimit() == limit
    assert {(Path(f.path).name, f.rule_id, f.line) for f in findings} == {("sum.py", "BRK102", 5),
                                                                          ("neg.py", "BRK102", 5)}


def test_ten_megabyte_file(tmp_path, rules):
    """A 10 MB generated module (embedded data: one 10 MB string, a 20,000-item table) and a model.

    (10 MB of *code* is measured by bench/robustness.py --big: CPython's parser alone takes
    ~20 s per 10 MB of functions on the 2 shared cores here, libcst several times that.)"""
    source = ("import torch\n\nBLOB = '" + "abcdefghij" * 1_000_000 + "'\n\nTABLE = ["
              + ", ".join(str(i) for i in range(20_000)) + "]\n\n" + GOOD.split("\n", 1)[1])
    path = _write(tmp_path, "huge.py", source.encode())
    assert path.stat().st_size >= 10 * 10**6
    findings = scan_files([path], rules).findings
    assert [(f.rule_id, f.line) for f in findings] == [("BRK102", 10)]


def test_directory_named_like_a_module_stub_and_symlink_loop(tmp_path, rules):
    from breakscan.static.discovery import iter_python_files

    (tmp_path / "pkg.py").mkdir()
    (tmp_path / "pkg.py" / "inner.py").write_text(GOOD)
    (tmp_path / "loop").mkdir()
    (tmp_path / "loop" / "up").symlink_to(tmp_path, target_is_directory=True)
    (tmp_path / "self").symlink_to("self")  # a symlink to itself
    (tmp_path / "dangling.py").symlink_to(tmp_path / "missing.py")
    (tmp_path / "stub.pyi").write_bytes(CASES["stub.pyi"][0])
    files = list(iter_python_files([tmp_path], root=tmp_path))
    names = sorted(p.relative_to(tmp_path).as_posix() for p in files)
    assert names == ["dangling.py", "pkg.py/inner.py", "stub.pyi"]
    findings = scan_files(files, rules).findings
    assert {(Path(f.path).name, f.rule_id) for f in findings} == {("inner.py", "BRK102"), ("dangling.py", "BRK901")}
    dangling = next(f for f in findings if f.rule_id == "BRK901")
    assert dangling.message == "cannot read file: No such file or directory"
    # a directory named x.py given explicitly is walked, not read
    assert list(iter_python_files([tmp_path / "pkg.py"], root=tmp_path)) == [tmp_path / "pkg.py" / "inner.py"]


def test_fifo_named_py_never_blocks(tmp_path, rules):
    from breakscan.static.discovery import iter_python_files
    from breakscan.static.engine import parse_file

    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this platform")
    os.mkfifo(tmp_path / "pipe.py")
    (tmp_path / "ok.py").write_text(GOOD)
    assert list(iter_python_files([tmp_path], root=tmp_path)) == [tmp_path / "ok.py"]
    assert parse_file(tmp_path / "pipe.py").message == "cannot read file: not a regular file"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="running as root: chmod 000 does not stop root from reading (simulated below)")
def test_unreadable_file_chmod(tmp_path, rules):
    bad = _write(tmp_path, "secret.py", GOOD.encode())
    good = _write(tmp_path, "good.py", GOOD.encode())
    bad.chmod(0)
    try:
        findings = scan_files([bad, good], rules).findings
    finally:
        bad.chmod(0o644)
    assert ("BRK901", "cannot read file: Permission denied") in {(f.rule_id, f.message) for f in findings}
    assert any(f.rule_id == "BRK102" and Path(f.path) == good for f in findings)


def test_unreadable_file_and_directory_simulated(tmp_path, rules, monkeypatch):
    """As root chmod cannot block reads: simulate EACCES on one file and on one directory."""
    from breakscan.static.discovery import iter_python_files

    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "hidden.py").write_text(GOOD)
    bad = _write(tmp_path, "secret.py", GOOD.encode())
    _write(tmp_path, "good.py", GOOD.encode())
    real_read, real_scandir, real_listdir = Path.read_bytes, os.scandir, os.listdir

    def read_bytes(self):
        if self.name == "secret.py":
            raise PermissionError(13, "Permission denied", str(self))
        return real_read(self)

    def scandir(path="."):
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    def listdir(path="."):
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_listdir(path)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(os, "listdir", listdir)
    files = list(iter_python_files([tmp_path], root=tmp_path))
    assert tmp_path / "locked" in files  # reported, not silently skipped
    findings = scan_files(files, rules).findings
    got = {(Path(f.path).name, f.rule_id, f.message if f.rule_id.startswith("BRK9") else "") for f in findings}
    assert got == {("secret.py", "BRK901", "cannot read file: Permission denied"),
                   ("locked", "BRK901", "cannot read directory: Permission denied"),
                   ("good.py", "BRK102", "")}
    assert bad.exists()


def test_paths_with_spaces_and_non_ascii_names(tmp_path, rules):
    folder = tmp_path / "my models" / "ünïcødé dïr"
    folder.mkdir(parents=True)
    path = _write(folder, "mödel with space.py", GOOD.encode())
    out = _cli([str(tmp_path), "--format", "json"], cwd=tmp_path)
    assert out.returncode == 1, out.stderr
    data = json.loads(out.stdout)
    assert [(f["path"], f["rule_id"]) for f in data["findings"]] == [
        (path.relative_to(tmp_path).as_posix(), "BRK102")]
    sarif = json.loads(_cli([str(tmp_path), "--format", "sarif"], cwd=tmp_path).stdout)
    uri = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert " " not in uri and "my%20models" in uri


# the CLI over the whole zoo ------------------------------------------------------------------
def _cli(args: list[str], cwd: Path, **env) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "XDG_CACHE_HOME": str(cwd / ".cache"),
                "BREAKSCAN_CACHE_DIR": str(cwd / ".cache"), **env}
    return subprocess.run([sys.executable, "-m", "breakscan", *args, "--no-dynamic", "--root", str(cwd)],
                          cwd=cwd, capture_output=True, text=True, timeout=300, env=full_env)


def test_cli_whole_zoo_goes_on_after_every_bad_file(tmp_path):
    zoo = tmp_path / "zoo"
    zoo.mkdir()
    for name, (data, _) in CASES.items():
        _write(zoo, name, data)
    _write(zoo, "zz_good.py", GOOD.encode())
    (zoo / "dir.py").mkdir()
    (zoo / "loop").mkdir()
    (zoo / "loop" / "back").symlink_to(zoo, target_is_directory=True)
    out = _cli(["zoo", "--format", "json"], cwd=tmp_path)
    assert out.returncode == 1, out.stderr  # findings, not "breakscan failed"
    data = json.loads(out.stdout)
    errors = {f["path"].split("/")[-1]: f for f in data["findings"] if f["kind"] == "error"}
    assert set(errors) == {n for n, (_, want) in CASES.items() if want == "BRK901"}
    assert all(f["rule_id"] == "BRK901" and "\n" not in f["message"] for f in errors.values())
    breaks = {(f["path"].split("/")[-1], f["line"]) for f in data["findings"] if f["rule_id"] == "BRK102"}
    assert ("zz_good.py", 5) in breaks and ("bom.py", 5) in breaks and ("crlf.py", 5) in breaks
    assert data["files_scanned"] == len(CASES) + 1
    for fmt in ("text", "sarif", "github"):
        again = _cli(["zoo", "--format", fmt], cwd=tmp_path)
        assert again.returncode == 1 and "Traceback" not in again.stderr, (fmt, again.stderr)


def test_cli_exit_codes(tmp_path):
    _write(tmp_path, "empty.py", b"")
    _write(tmp_path, "stub.pyi", CASES["stub.pyi"][0])
    assert _cli(["empty.py", "stub.pyi"], cwd=tmp_path).returncode == 0
    _write(tmp_path, "broken.py", b"def f(:\n")
    broken = _cli(["broken.py"], cwd=tmp_path)
    assert broken.returncode == 1  # an unparsable file is a finding, not a breakscan failure
    assert "BRK901" in broken.stdout
    missing = _cli(["nope.py"], cwd=tmp_path)
    assert missing.returncode == 2 and "does not exist" in missing.stderr


# nothing lost: a failing rule check, an interrupted --output ------------------------------------
MASKED = """\
import torch

class Model(torch.nn.Module):
    def forward(self, x):
        mask = x > 0
        y = x[mask]
        print(y)
        return y.item()
"""


def _boom(self, node):
    raise KeyError("injected failure")


def test_failing_rule_check_is_an_error_finding_and_other_rules_still_run(tmp_path, rules, monkeypatch):
    from breakscan.static.checks import RegionVisitor

    monkeypatch.setattr(RegionVisitor, "visit_Subscript", _boom)
    monkeypatch.setattr(walk, "_METHODS", {})  # walk caches visit_ methods per type
    path = _write(tmp_path, "model.py", MASKED.encode())
    findings = scan_files([path], rules).findings
    got = {(f.rule_id, f.line) for f in findings}
    assert got == {("BRK900", 6), ("BRK201", 7), ("BRK102", 8)}  # BRK106 (mask index, line 6) lost
    error = next(f for f in findings if f.rule_id == "BRK900")
    assert "visit_Subscript" in error.message and "BRK106" in error.message
    assert "KeyError" in error.message and "\n" not in error.message
    assert Path(error.path) == path
    verbose = next(f for f in scan_files([path], rules, verbose=True).findings if f.rule_id == "BRK900")
    assert "Traceback (most recent call last)" in verbose.message and "_boom" in verbose.message


def test_an_internal_error_is_not_cached(tmp_path, rules, monkeypatch):
    """A BRK900 is retried on the next run (and `--verbose` then shows its traceback)."""
    from breakscan.static.cache import Cache
    from breakscan.static.checks import RegionVisitor

    path = _write(tmp_path, "model.py", MASKED.encode())
    cache = Cache(tmp_path / "cache")
    with monkeypatch.context() as patch:
        patch.setattr(RegionVisitor, "visit_Subscript", _boom)
        patch.setattr(walk, "_METHODS", {})
        first = scan_files([path], rules, cache=cache)
    assert "BRK900" in {f.rule_id for f in first.findings}
    walk._METHODS.clear()
    again = scan_files([path], rules, cache=Cache(tmp_path / "cache"))
    assert again.cache_hits == 0  # not replayed from the cache
    assert {(f.rule_id, f.line) for f in again.findings} == {("BRK106", 6), ("BRK201", 7), ("BRK102", 8)}


def test_failing_rule_check_through_the_cli(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from breakscan.cli import app
    from breakscan.static.checks import RegionVisitor

    monkeypatch.setattr(RegionVisitor, "visit_Call", _boom)
    monkeypatch.setattr(walk, "_METHODS", {})  # walk caches visit_ methods per type
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / ".cache"))
    monkeypatch.setenv("BREAKSCAN_CACHE_DIR", str(tmp_path / ".cache"))
    _write(tmp_path, "model.py", MASKED.encode())
    monkeypatch.chdir(tmp_path)
    out = CliRunner().invoke(app, ["model.py", "--no-dynamic", "--format", "json", "--root", str(tmp_path)])
    assert out.exit_code == 1, out.output
    data = json.loads(out.output)
    got = {(f["rule_id"], f["line"]) for f in data["findings"]}
    assert ("BRK106", 6) in got and ("BRK900", 7) in got  # one BRK900 for visit_Call (lines 7 and 8)
    error = next(f for f in data["findings"] if f["rule_id"] == "BRK900")
    assert "visit_Call" in error["message"] and "BRK102" in error["message"] and "1 more node" in error["message"]
    monkeypatch.setenv("BREAKSCAN_CACHE_DIR", str(tmp_path / ".cache-verbose"))  # the cache ignores --verbose
    verbose = CliRunner().invoke(app, ["model.py", "--no-dynamic", "--verbose", "--root", str(tmp_path),
                                       "--color", "never"])
    assert verbose.exit_code == 1 and "Traceback" in verbose.output


def test_output_is_written_atomically(tmp_path, monkeypatch):
    from breakscan import cli

    target = tmp_path / "report.sarif"
    target.write_text("old report\n")
    with pytest.raises(UnicodeEncodeError):  # fails half-way through the write
        cli.write_atomic(target, "new report " * 1000 + "\ud800 tail")
    assert target.read_text() == "old report\n"
    monkeypatch.setattr(cli.os, "replace", lambda *a: (_ for _ in ()).throw(OSError(28, "No space left")))
    with pytest.raises(OSError):
        cli.write_atomic(target, "new report\n")
    assert target.read_text() == "old report\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.sarif"]  # no temp file left
    monkeypatch.undo()
    cli.write_atomic(target, "new report\n")
    assert target.read_text() == "new report\n"


def test_output_through_the_cli_replaces_the_file(tmp_path):
    _write(tmp_path, "model.py", GOOD.encode())
    (tmp_path / "out.json").write_text("old\n")
    out = _cli(["model.py", "--format", "json", "--output", "out.json"], cwd=tmp_path)
    assert out.returncode == 1 and out.stdout == ""
    assert json.loads((tmp_path / "out.json").read_text())["findings"][0]["rule_id"] == "BRK102"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != ".cache") == ["model.py", "out.json"]
