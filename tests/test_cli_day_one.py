"""A user's first day with the CLI: --version, `rule` for graph-break ids, an empty tree, errors
without a status, rule examples as users read them, the entries summary on real Dynamo runs,
findings in libraries grouped apart, and a text report that reads well in an 80-column CI log.

Each test works in a fresh tmp directory (outside any git repository) with the user's own files,
and drives the installed `breakscan` as a user does (subprocess), or typer's CliRunner where
no process boundary matters.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from breakscan.catalog import load_catalog
from breakscan.cli import app
from breakscan.dynamic.probe import break_summary
from breakscan.report.sarif_rules import rule_help_markdown
from tests.conftest import requires_torch

BREAKSCAN = [sys.executable, "-m", "breakscan"]


def breakscan(cwd: Path, *args: str, columns: int = 80, timeout: float = 300) -> subprocess.CompletedProcess:
    """`breakscan ARGS` in `cwd` as in a CI log: COLUMNS=80, stdout a pipe (no TTY)."""
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TERM")}
    env["COLUMNS"] = str(columns)
    return subprocess.run([*BREAKSCAN, *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=timeout)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def line_of(path: Path, needle: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def assert_fits_80_columns(text: str) -> None:
    for line in text.splitlines():
        assert len(line) <= 80, f"{len(line)} columns: {line!r}"
        assert line == line.rstrip(), f"trailing spaces: {line!r}"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    monkeypatch.chdir(root)
    return root


def test_version_flag_prints_the_version(project: Path) -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0 and result.stdout.startswith("breakscan 0.")


@pytest.mark.dynamic
@requires_torch
def test_rule_describes_a_graph_break_id_from_torchs_registry(project: Path) -> None:
    result = breakscan(project, "rule", "GB0124")
    assert result.returncode == 0, result.stderr
    out = " ".join(result.stdout.split())
    assert "GB0124: Unsupported Tensor.item() call with capture_scalar_outputs=False" in out
    assert "graph-break registry of torch 2." in out and "capture_scalar_outputs = True" in out
    assert "BRK102" in out  # the rule that predicts it
    assert_fits_80_columns(result.stdout)
    unknown = breakscan(project, "rule", "GB9997")
    assert unknown.returncode == 2 and "not in the graph-break registry" in unknown.stderr


def test_rule_for_a_graph_break_id_without_torch_says_torch_is_missing(project: Path) -> None:
    hide_torch = ("import sys; sys.modules['torch'] = None; sys.argv = ['breakscan', 'rule', 'GB0124'];"
                  "from breakscan.cli import main; main()")
    result = subprocess.run([sys.executable, "-c", hide_torch], cwd=project, capture_output=True, text=True,
                            env={**os.environ, "COLUMNS": "80"}, timeout=60)
    out = " ".join(result.stdout.split())
    assert result.returncode == 0
    assert "torch is not installed" in out and "pip install 'breakscan[dynamic]'" in out
    assert "BRK102" in out and "GB0124 on the graph-break site" in out


def test_empty_directory_warns_no_python_files_and_exits_0(project: Path) -> None:
    (project / "notes.txt").write_text("not python\n")
    result = breakscan(project, ".")
    assert result.returncode == 0
    assert "No Python files found" in result.stderr
    assert "0 file(s) scanned" not in result.stdout and "confirmed" not in result.stdout


def test_unparsable_file_is_an_error_without_a_prediction_tag(project: Path) -> None:
    write(project / "broken.py", "def f(:\n    pass\n")
    result = breakscan(project, "broken.py", "--no-dynamic")
    assert result.returncode == 1
    [headline] = [line for line in result.stdout.splitlines() if "BRK901" in line and "broken.py:" in line]
    assert "[predicted]" not in headline and "[" not in headline.split("BRK901", 1)[1][:3]
    data = json.loads(breakscan(project, "broken.py", "--no-dynamic", "-f", "json").stdout)
    assert data["findings"][0]["kind"] == "error" and data["findings"][0]["status"]  # JSON keeps its fields


def test_rule_examples_are_shown_without_expect_markers(project: Path) -> None:
    for rule in load_catalog().values():
        assert "# expect" not in rule_help_markdown(rule), rule.id
    result = CliRunner().invoke(app, ["rule", "BRK101"], env={"COLUMNS": "80"})
    assert result.exit_code == 0 and "if y.sum() > 0:" in result.stdout and "expect" not in result.stdout
    assert_fits_80_columns(result.stdout)


def test_a_fallback_break_keeps_its_location_for_the_split_summary() -> None:
    record = {"co_name": "forward", "co_filename": "/p/m.py", "co_firstlineno": 3, "fail_type": "Unsupported",
              "fail_user_frame_filename": "/p/m.py", "fail_user_frame_lineno": 7,
              "parsed": {"gb_type": "Dynamic shape operator", "gb_id": "GB0036"}}
    assert break_summary(record) == {"gb_type": "Dynamic shape operator", "gb_id": "GB0036",
                                     "path": "/p/m.py", "line": 7, "fallback": True}  # marked for the HTML picture


RECOMPILING = """\
    import torch


    def scale(x):
        y = x * 2
        print("step")
        return y + x.sum()


    def breakscan_examples():
        for shape in ((2,), (2, 2), (2, 2, 2), (2, 2, 2, 2)):
            yield scale, (torch.ones(shape),)
"""


@pytest.mark.dynamic
@requires_torch
def test_entries_summary_counts_calls_and_recompiles_of_a_real_run(project: Path) -> None:
    model = write(project / "model.py", RECOMPILING)
    result = breakscan(project, "model.py", "--exit-zero")
    assert result.returncode == 0, result.stderr
    summary = " ".join(result.stdout.split("Dynamic entries (worst first)")[1].split())
    # 4 calls; a new rank each time: 3 recompiles (the resume function after the print recompiles with its root)
    assert "model.py:scale 4 call(s), 2 graph(s) (ops per graph: 1, 2), 1 break(s), 3 recompile(s)" in summary
    assert f"largest graph split by model.py:{line_of(model, 'print(')} Failed to trace builtin operator" in summary
    assert ":0 " not in summary
    recompile = next(line for line in result.stdout.splitlines() if "BRK510" in line)
    assert "rank mismatch" in result.stdout and "(and 2 more recompile(s)" in " ".join(result.stdout.split())
    assert recompile.startswith("model.py:")
    assert_fits_80_columns(result.stdout)


@pytest.mark.dynamic
@requires_torch
def test_run_mode_entry_counts_recompiles_and_does_not_call_frames_calls(project: Path) -> None:
    write(project / "train.py", """\
        import torch


        class Net(torch.nn.Module):
            def forward(self, x):
                y = x * 2
                print("step")
                return y + x.sum()


        net = torch.compile(Net())
        for shape in ((2,), (2, 2), (2, 2, 2), (2, 2, 2, 2)):
            net(torch.ones(shape))
    """)
    result = breakscan(project, "run", "-f", "json", "-o", "r.json", "--exit-zero", "train.py")
    assert result.returncode == 0, result.stderr
    report = json.loads((project / "r.json").read_text())
    [entry] = report["entries"]
    assert entry["recompiles"] == 3 and entry["calls"] == 0  # calls of compiled code are not seen in run mode
    [recompile] = [f for f in report["findings"] if f["rule_id"] == "BRK510"]
    assert recompile["message"].endswith("(and 2 more recompile(s) on this guard)")
    text = breakscan(project, "run", "--exit-zero", "train.py").stdout
    assert "3 recompile(s)" in text and "call(s)" not in text.split("Dynamic entries")[1]


LIBRARY = """\
    import torch


    def scale_by_max(x):
        m = x.abs().max().item()
        return x / m


    class Normalizer(torch.nn.Module):
        def forward(self, x):
            return x / x.abs().max().item()
"""
USER = """\
    import os
    import sys

    import torch

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "libs"))
    import fastnorm


    def step(x):
        y = x + 1
        return fastnorm.scale_by_max(y)


    def breakscan_examples():
        x = torch.randn(8)
        yield step, (x,)
        yield fastnorm.Normalizer(), (x,)
"""


@pytest.mark.dynamic
@requires_torch
def test_findings_in_a_library_are_one_line_each_under_the_users_call_site(project: Path) -> None:
    library = write(project.parent / "libs" / "fastnorm.py", LIBRARY)  # a site-packages-like dir outside the root
    user = write(project / "train.py", USER)
    result = breakscan(project, "train.py", "--exit-zero")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert_fits_80_columns(out)
    mine, libs = out.split("In libraries you call: ", 1)
    libs = libs.split("finding(s) in")[0]
    assert "fastnorm.py" not in mine.split("In your code")[1]  # nothing of the library before its heading
    lines = libs.splitlines()
    assert lines[0].startswith("2 finding(s) (--verbose: in full)")
    # each finding is one line, under the line of the user's code that reached it
    step_site = lines.index(f"train.py:{line_of(user, 'return fastnorm.scale_by_max(y)')} reached:")
    assert "fastnorm.py:5 GB0124" in lines[step_site + 1]
    yield_site = lines.index(f"train.py:{line_of(user, 'yield fastnorm.Normalizer()')} reached:")
    assert "fastnorm.py:11 GB0124" in lines[yield_site + 1]
    # the SARIF/JSON location is the user's call site too; the library frame stays innermost in the stack
    data = json.loads(breakscan(project, "train.py", "--exit-zero", "-f", "json").stdout)
    located = {(f["path"], f["line"], f["stack"][-1]["line"]) for f in data["findings"] if f["rule_id"] == "GB0124"}
    assert located == {("train.py", line_of(user, "return fastnorm"), 5),
                       ("train.py", line_of(user, "yield fastnorm.Normalizer()"), 11)}
    assert {os.path.normpath(f["stack"][-1]["path"]) for f in data["findings"] if f["rule_id"] == "GB0124"} \
        == {str(library)}

    verbose = breakscan(project, "train.py", "--exit-zero", "--verbose").stdout
    assert_fits_80_columns(verbose)
    full = verbose.split("In libraries you call: ", 1)[1]
    assert "> 12 |     return fastnorm.scale_by_max(y)" in full  # the code frame at the user's call site
    trace = full.split("user stack (innermost last):")[1].splitlines()
    assert trace[1:3] == ["    train.py:12 in step", "    ../libs/fastnorm.py:5 in scale_by_max"]
