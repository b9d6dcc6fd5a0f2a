"""Day one for a real user: `--entry`, `entries` in pyproject, packages, and a `breakscan/` tree in cwd.

The CLI runs in a subprocess from a fresh directory holding the user's own files, as users run
it. Dynamic runs cost ~10 s each (torch import, Dynamo set-up), so each test asserts several
things about one run; the usage errors start no child.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, requires_torch, write_files

# The layer breaks the graph (`print`), one relative import away from the model.
PACKAGE = {
    "mypkg/__init__.py": "",
    "mypkg/layers.py": """\
        import torch


        def scale(x):
            print("scaling")
            return x * 2
        """,
    "mypkg/model.py": """\
        import torch

        from .layers import scale


        def forward(x):
            y = scale(x)
            return torch.relu(y) + 1


        def breakscan_examples():
            yield forward, (torch.randn(4, 8),)


        def examples():
            yield forward, (torch.randn(2, 8),)
        """,
}

# A top-level script with its examples under another name (no `breakscan_examples`).
SCRIPT = {
    "model.py": """\
        import torch


        def forward(x):
            x = x.sin()
            n = x.sum().item()
            return x * n


        def examples():
            yield forward, (torch.randn(4),)
        """,
}

PRINT_LINE = 5  # `print("scaling")` in mypkg/layers.py
ITEM_LINE = 6  # `n = x.sum().item()` in model.py


def breakscan_cmd() -> list[str]:
    """The installed console script beside this interpreter, else this checkout's CLI."""
    script = Path(sys.executable).with_name("breakscan")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(ROOT)!r}); "
            "from breakscan.cli import main; main()"]


def breakscan(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(NO_COLOR="1", COLUMNS="200", BREAKSCAN_CACHE_DIR=str(cwd / ".cache"))
    return subprocess.run([*breakscan_cmd(), *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=400)


def json_report(proc: subprocess.CompletedProcess[str]) -> dict:
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


def observed(report: dict, gb_id: str) -> list[dict]:
    """Findings Dynamo observed (or that confirm a prediction) for one graph-break id."""
    return [f for f in report["findings"]
            if gb_id in f["gb_ids"] and f["status"] in ("observed", "confirmed")]


def assert_ran_cleanly(report: dict) -> None:
    """The dynamic pass ran and no user-code or pass error was reported."""
    assert report["dynamic_ran"] is True
    errors = [f for f in report["findings"] if f["rule_id"] in ("BRK902", "BRK903")]
    assert errors == [], errors


@requires_torch
@pytest.mark.dynamic
def test_package_with_relative_imports_runs_its_examples(tmp_path: Path) -> None:
    write_files(tmp_path, PACKAGE)
    report = json_report(breakscan("mypkg/", "--format", "json", cwd=tmp_path))
    assert_ran_cleanly(report)
    # The break is in the relatively imported module, reached from the model's forward.
    [brk] = observed(report, "GB0059")
    assert (brk["path"], brk["line"]) == ("mypkg/layers.py", PRINT_LINE)
    assert [(fr["path"], fr["function"]) for fr in brk["stack"]] == [("mypkg/model.py", "forward"),
                                                                      ("mypkg/layers.py", "scale")]
    [entry] = report["entries"]
    assert entry["name"] == "mypkg/model.py:forward" and entry["graphs"] == 2 and entry["graph_breaks"] == 1


@requires_torch
@pytest.mark.dynamic
def test_scanning_from_inside_a_package_never_lets_its_modules_shadow_the_standard_library(tmp_path: Path) -> None:
    # `breakscan .` run in a package directory (as in torch_geometric, whose `typing.py` sits beside
    # `__init__.py`): its modules are the package's, not top-level ones replacing `typing` for torch.
    write_files(tmp_path, {
        "geo/__init__.py": "",
        "geo/typing.py": """\
            from typing import Optional

            OptTensor = Optional["torch.Tensor"]
            """,
        "geo/model.py": """\
            import torch

            from .typing import OptTensor


            def scale(x, w: OptTensor = None):
                if x.sum() > 0:
                    x = x * 2
                return x if w is None else x * w


            def breakscan_examples():
                yield scale, (torch.randn(4),)
            """,
    })
    report = json_report(breakscan(".", "--format", "json", cwd=tmp_path / "geo"))
    assert_ran_cleanly(report)
    [brk] = observed(report, "GB0170")
    assert (brk["path"], brk["line"], brk["status"]) == ("model.py", 7, "confirmed")


@requires_torch
@pytest.mark.dynamic
def test_entry_file_func_runs_that_function(tmp_path: Path) -> None:
    write_files(tmp_path, SCRIPT)
    report = json_report(breakscan("model.py", "--entry", "model.py:examples", "--format", "json", cwd=tmp_path))
    assert_ran_cleanly(report)
    [brk] = observed(report, "GB0124")  # Tensor.item(): a data-dependent scalar
    assert (brk["path"], brk["line"]) == ("model.py", ITEM_LINE)
    [entry] = report["entries"]
    assert entry["name"] == "model.py:forward" and entry["calls"] == 1 and entry["graph_breaks"] == 1


@requires_torch
@pytest.mark.dynamic
def test_entry_on_a_file_in_a_package_imports_it_as_its_module(tmp_path: Path) -> None:
    write_files(tmp_path, PACKAGE)
    report = json_report(breakscan("mypkg/layers.py", "--entry", "mypkg/model.py:examples", "--format", "json",
                                   cwd=tmp_path))
    assert_ran_cleanly(report)
    [brk] = observed(report, "GB0059")
    assert (brk["path"], brk["line"]) == ("mypkg/layers.py", PRINT_LINE)
    assert [e["name"] for e in report["entries"]] == ["mypkg/model.py:forward"]


@requires_torch
@pytest.mark.dynamic
def test_pyproject_entries_are_relative_to_the_pyproject(tmp_path: Path) -> None:
    write_files(tmp_path, {**SCRIPT, "pyproject.toml": '[tool.breakscan]\nentries = ["model.py:examples"]\n',
                           "docs/notes.py": "x = 1\n"})
    # Run from a subdirectory: the entry's file is found beside pyproject.toml, not in the cwd.
    report = json_report(breakscan("--format", "json", "--root", str(tmp_path), cwd=tmp_path / "docs"))
    assert_ran_cleanly(report)
    [brk] = observed(report, "GB0124")
    assert (brk["path"], brk["line"]) == ("model.py", ITEM_LINE)


@pytest.mark.parametrize(("entry", "message"), [
    ("missing.py:f", "breakscan: error: entry 'missing.py:f': file {tmp}/missing.py does not exist"),
    ("model.py:nope", "breakscan: error: entry 'model.py:nope': model.py defines no top-level 'nope'"),
])
def test_entry_naming_a_missing_file_or_function_is_a_usage_error(tmp_path: Path, entry: str, message: str) -> None:
    write_files(tmp_path, SCRIPT)
    proc = breakscan("model.py", "--entry", entry, cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [message.format(tmp=tmp_path)]
    assert proc.stdout == ""


def test_pyproject_entry_naming_a_missing_function_is_a_usage_error(tmp_path: Path) -> None:
    write_files(tmp_path, {**SCRIPT, "pyproject.toml": '[tool.breakscan]\nentries = ["model.py:exmaples"]\n'})
    proc = breakscan("model.py", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == ["breakscan: error: entry 'model.py:exmaples': model.py defines no "
                                        "top-level 'exmaples'"]


# A contributor's (or CI's) checkout: a `breakscan/` source tree in the working directory. Any
# import of it fails loudly.
FAKE_TREE = {
    "breakscan/__init__.py": 'raise ImportError("the breakscan/ tree in the working directory was imported")\n',
    "breakscan/dynamic/__init__.py": 'raise ImportError("the breakscan/ tree in the working directory was imported")\n',
    "breakscan/dynamic/probe.py": 'raise ImportError("the breakscan/ tree in the working directory was imported")\n',
}


def assert_no_breakscan_frames(report: dict) -> None:
    for f in report["findings"]:
        for path in [f["path"], *(fr["path"] for fr in f["stack"])]:
            assert not path.startswith("breakscan/") and "/breakscan/dynamic/" not in path, f


@requires_torch
@pytest.mark.dynamic
def test_a_breakscan_tree_in_the_working_directory_never_stands_in_for_breakscan(tmp_path: Path) -> None:
    write_files(tmp_path, {**PACKAGE, **FAKE_TREE})
    report = json_report(breakscan("mypkg/", "--format", "json", cwd=tmp_path))
    assert_ran_cleanly(report)
    [brk] = observed(report, "GB0059")
    assert (brk["path"], brk["line"]) == ("mypkg/layers.py", PRINT_LINE)
    assert_no_breakscan_frames(report)


@requires_torch
@pytest.mark.dynamic
def test_run_from_a_directory_with_a_breakscan_tree_runs_the_program(tmp_path: Path) -> None:
    write_files(tmp_path, {**FAKE_TREE, "train.py": """\
        import torch


        def step(x):
            print("step")
            return x + 1


        compiled = torch.compile(step, backend="eager")
        print("result", compiled(torch.ones(2)).tolist())
        """})
    out = tmp_path / "report.json"
    proc = breakscan("run", "--format", "json", "-o", str(out), "train.py", cwd=tmp_path)
    assert "result [2.0, 2.0]" in proc.stdout, proc.stderr
    assert "train.py exited with status 0" in proc.stderr
    report = json.loads(out.read_text())
    assert_ran_cleanly(report)
    [brk] = observed(report, "GB0059")
    assert (brk["path"], brk["line"]) == ("train.py", 5)
    assert_no_breakscan_frames(report)


def test_breakscan_frames_are_never_a_location_even_inside_the_scanned_root(tmp_path: Path) -> None:
    """A contributor scans inside the breakscan checkout: the probe's frames lie in the project
    root, yet a break whose other frames are all outside it is placed at the user's frame."""
    from breakscan.dynamic import runner

    probe = str(Path(runner.__file__).with_name("probe.py"))
    user = str(tmp_path / "elsewhere" / "model.py")
    ev = {"gb_id": "GB0059", "gb_type": "Failed to trace builtin operator", "path": user, "line": 5,
          "stack": [{"path": probe, "line": 400, "function": "call", "column": None},
                    {"path": user, "line": 5, "function": "forward", "column": None}]}
    finding = runner.break_finding(ev, "entry", Path(runner.BREAKSCAN_DIR).parent, fallback=False)
    assert (finding.path, finding.line) == (user, 5)
    assert [fr.path for fr in finding.stack] == [user]
    # With only breakscan frames there is no location to give, rather than a wrong one.
    assert runner.primary_frame([{"path": probe, "line": 1, "function": "main", "column": None}], tmp_path) is None


@pytest.mark.parametrize(("source", "entry", "ok"), [
    ("def examples():\n    yield\n", "m.py:examples", True),
    ("import torch\nif torch.cuda.is_available():\n    def examples():\n        yield\n", "m.py:examples", True),
    ("import functools\nexamples = functools.partial(print, 1)\n", "m.py:examples", True),
    ("class Examples:\n    def make(self):\n        yield\n", "m.py:Examples.make", True),
    ("from helpers import *\n", "m.py:examples", True),  # may bind it: importing tells
    ("def breakscan_examples():\n    yield\n", "m.py", True),
    ("def other():\n    examples = 1\n", "m.py:examples", False),  # a local is not the module's
    ("def examples_v2():\n    yield\n", "m.py:examples", False),
])
def test_an_entry_is_checked_by_reading_its_file(tmp_path: Path, source: str, entry: str, ok: bool) -> None:
    from breakscan.dynamic.entries import EntryError, check_entry, parse_entry

    (tmp_path / "m.py").write_text(source)
    parsed = parse_entry(entry, tmp_path)
    assert parsed.path == tmp_path / "m.py"
    if ok:
        check_entry(parsed)
    else:
        with pytest.raises(EntryError, match="defines no top-level"):
            check_entry(parsed)
