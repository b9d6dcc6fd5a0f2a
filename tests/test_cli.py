"""The command line: exit codes, usage errors, output files, colour control (static pass only)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from breakscan.cli import app

ROOT = Path(__file__).resolve().parent.parent
ESCAPE = re.compile(r"\x1b\[")

BREAKING = textwrap.dedent(
    """\
    import torch
    from torch import nn


    class Net(nn.Module):
        def forward(self, x):
            return x * x.sum().item()
    """
)
CLEAN = textwrap.dedent(
    """\
    import torch
    from torch import nn


    class Net(nn.Module):
        def forward(self, x):
            return x * x.sum()
    """
)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory outside any git repository, as the working directory; no pyproject."""
    monkeypatch.chdir(tmp_path)
    for name in ("NO_COLOR", "FORCE_COLOR", "TERM", "COLUMNS"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def invoke(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(app, ["--no-dynamic" if a == "@static" else a for a in args], env=env)


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_clean_file_exits_0(project: Path) -> None:
    write(project / "m.py", CLEAN)
    result = invoke("m.py", "@static")
    assert result.exit_code == 0, result.output
    assert "No findings" in result.stdout


def test_breaking_file_exits_1_and_names_the_rule(project: Path) -> None:
    write(project / "m.py", BREAKING)
    result = invoke("m.py", "@static")
    assert result.exit_code == 1
    assert "BRK102" in result.stdout and "m.py:7" in result.stdout


def test_explicit_check_command_and_default_path(project: Path) -> None:
    write(project / "m.py", BREAKING)
    assert invoke("check", "@static").exit_code == 1


def test_exit_zero_overrides_findings(project: Path) -> None:
    write(project / "m.py", BREAKING)
    assert invoke("m.py", "@static", "--exit-zero").exit_code == 0


def test_fail_on_error_with_only_warnings_exits_0(project: Path) -> None:
    write(project / "m.py", BREAKING)
    assert invoke("m.py", "@static", "--fail-on", "error").exit_code == 0
    assert invoke("m.py", "@static", "--fail-on", "note").exit_code == 1


def test_unparsable_file_is_a_finding_exit_1(project: Path) -> None:
    write(project / "bad.py", "def f(:\n")
    result = invoke("bad.py", "@static")
    assert result.exit_code == 1
    assert "BRK9" in result.stdout


def test_missing_path_is_one_line_on_stderr_and_exit_2(project: Path) -> None:
    result = invoke("missing.py", "@static")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.strip().splitlines() == ["breakscan: error: path does not exist: missing.py"]


def test_unknown_rule_in_select_exits_2(project: Path) -> None:
    write(project / "m.py", CLEAN)
    result = invoke("m.py", "@static", "--select", "BRK999")
    assert result.exit_code == 2
    assert "BRK999" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_bad_fail_on_and_bad_format_exit_2(project: Path) -> None:
    write(project / "m.py", CLEAN)
    assert invoke("m.py", "@static", "--fail-on", "fatal").exit_code == 2
    assert invoke("m.py", "@static", "--format", "xml").exit_code == 2


def test_select_and_ignore_filter_the_exit_code(project: Path) -> None:
    write(project / "m.py", BREAKING)
    assert invoke("m.py", "@static", "--ignore", "BRK102").exit_code == 0
    assert invoke("m.py", "@static", "--select", "BRK2").exit_code == 0
    assert invoke("m.py", "@static", "--select", "BRK1").exit_code == 1


@pytest.mark.parametrize("fmt", ["json", "sarif", "github", "text"])
def test_output_file_is_written_and_stdout_stays_empty(project: Path, fmt: str) -> None:
    write(project / "m.py", BREAKING)
    out = project / "out" / f"report.{fmt}"
    out.parent.mkdir()
    result = invoke("m.py", "@static", "--format", fmt, "--output", str(out))
    assert result.exit_code == 1
    assert result.stdout == ""
    text = out.read_text(encoding="utf-8")
    assert "BRK102" in text and text.endswith("\n")
    if fmt in ("json", "sarif"):
        json.loads(text)
    assert not ESCAPE.search(text)


def test_quiet_prints_findings_without_the_summary(project: Path) -> None:
    write(project / "m.py", BREAKING)
    loud, quiet = invoke("m.py", "@static").stdout, invoke("m.py", "@static", "--quiet").stdout
    assert "finding(s) in" in loud and "finding(s) in" not in quiet
    assert "BRK102" in quiet


def test_quiet_clean_run_prints_nothing(project: Path) -> None:
    write(project / "m.py", CLEAN)
    result = invoke("m.py", "@static", "-q")
    assert result.exit_code == 0 and result.stdout == ""


def test_color_always_emits_escapes_and_never_does_not(project: Path) -> None:
    write(project / "m.py", BREAKING)
    assert ESCAPE.search(invoke("m.py", "@static", "--color", "always").stdout)
    assert not ESCAPE.search(invoke("m.py", "@static", "--color", "never", env={"FORCE_COLOR": "1"}).stdout)


def test_no_color_env_means_no_escape_codes_even_when_forced(project: Path) -> None:
    write(project / "m.py", BREAKING)
    forced = invoke("m.py", "@static", env={"FORCE_COLOR": "1"}).stdout
    assert ESCAPE.search(forced)  # the check below would be vacuous otherwise
    result = invoke("m.py", "@static", env={"FORCE_COLOR": "1", "NO_COLOR": "1"})
    assert result.exit_code == 1 and "BRK102" in result.stdout
    assert not ESCAPE.search(result.stdout)


def test_not_a_tty_degrades_to_plain_text(project: Path) -> None:
    """A real process with stdout on a pipe: no escapes, no progress, no cursor control."""
    write(project / "m.py", BREAKING)
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.run([sys.executable, "-m", "breakscan", "m.py", "--no-dynamic"], cwd=project,
                          capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 1
    assert "BRK102" in proc.stdout
    assert "\x1b" not in proc.stdout and "\x1b" not in proc.stderr and "\r" not in proc.stdout


def test_json_and_sarif_record_the_command_line(project: Path) -> None:
    write(project / "m.py", BREAKING)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    args = ["m.py", "--no-dynamic", "--select", "BRK102"]
    for fmt in ("json", "sarif"):
        proc = subprocess.run([sys.executable, "-m", "breakscan", *args, "--format", fmt], cwd=project,
                              capture_output=True, text=True, env=env, timeout=60)
        assert proc.returncode == 1, proc.stderr
        doc = json.loads(proc.stdout)
        if fmt == "json":
            assert doc["command"] == ["breakscan", *args, "--format", "json"]
        else:
            [invocation] = doc["runs"][0]["invocations"]
            assert invocation["commandLine"] == "breakscan m.py --no-dynamic --select BRK102 --format sarif"
            assert invocation["arguments"] == [*args, "--format", "sarif"]


def test_version_and_rules_commands(project: Path) -> None:
    assert invoke("version").stdout.startswith("breakscan ")
    rules = json.loads(invoke("rules", "--format", "json").stdout)
    assert any(r["id"] == "BRK102" for r in rules)
    assert invoke("rule", "BRK000").exit_code == 2
