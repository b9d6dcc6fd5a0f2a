"""Suppression comments hold for both passes, driven through the CLI on a user's own files.

A comment on a line covers every finding located there: a static prediction, Dynamo's break
that confirms it (which must not come back as `observed`), and a break only Dynamo saw. The
project is written as users write it: an unannotated helper in another file, decorated by a
project wrapper (the static pass does not read the return of a function a wrapper decorates,
so the breaks on it are Dynamo's alone; a grad mode such as `@torch.no_grad()` would not hide it)
and a model using it.
Each CLI run with the dynamic pass costs ~10 s (torch import, Dynamo set-up), so each test
checks every comment form in one run.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import requires_torch

HELPERS = """\
import functools


def logged(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


@logged
def scale(x):
    return x * 2
"""

# Every `if` on a tensor breaks the graph (GB0170). On `y` (from the other file's helper) only
# Dynamo sees it; on `x` (the forward's argument) the static pass predicts BRK101 too.
MODEL = """\
import torch
from torch import nn

from helpers import scale


class Gate(nn.Module):
    def forward(self, x):  # noqa: BRK510
        y = scale(x)
        if y.sum() > 0:  # breakscan: ignore
            y = y + 1
        if y.mean() > 0:  # breakscan: ignore[GB0170]
            y = y + 1
        if y.amax() > 0:  # noqa: BRK101
            y = y + 1
        if y.amin() > 0:  # noqa: E501
            y = y + 1
        if x.sum() > 0:  # breakscan: ignore[BRK101]
            y = y - 1
        if x.mean() > 0:  # noqa: GB0170
            y = y - 1
        if x.amax() > 0:  # noqa: BRK1
            y = y - 1
        n = int(x.sum())  # noqa: BRK104
        if x.amin() > 0:
            y = y - 1
        return y * n  # breakscan: ignore[BRK510]
"""

EXAMPLES = """\


def breakscan_examples():
    gate = Gate()
    yield gate, (torch.ones(2, 4),)
    yield gate, (torch.ones(3, 4),)  # another batch size: a recompile, guarded on the def line
"""

SCRIPT = """\
import torch

from model import Gate

compiled = torch.compile(Gate())
print("output", compiled(torch.ones(2, 4)).sum().item())
print("output", compiled(torch.ones(3, 4)).sum().item())
"""


def line_of(text: str) -> int:
    return next(i for i, line in enumerate(MODEL.splitlines(), 1) if text in line)


# What remains: the break on the line whose comment names another tool's code (observed, as
# without a comment) and the confirmed one without a comment. Nothing else: no `observed` break
# on a line whose static prediction was suppressed.
EXPECTED = {("GB0170", line_of("if y.amin() > 0:"), "observed"),
            ("BRK101", line_of("if x.amin() > 0:"), "confirmed")}


def breakscan_cli() -> list[str]:
    """The installed console script next to this interpreter, else `python -m breakscan`."""
    script = Path(sys.executable).with_name("breakscan")
    return [str(script)] if script.exists() else [sys.executable, "-m", "breakscan"]


def run_cli(*args: str, cwd: Path, umask: int = -1) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    env.pop("PYTHONPATH", None)
    return subprocess.run([*breakscan_cli(), *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=400, umask=umask)


def project(tmp_path: Path, examples: bool = True) -> Path:
    (tmp_path / "helpers.py").write_text(HELPERS, encoding="utf-8")
    (tmp_path / "model.py").write_text(MODEL + (EXAMPLES if examples else ""), encoding="utf-8")
    return tmp_path


def found(report: dict) -> set[tuple[str, int, str]]:
    return {(f["rule_id"], f["line"], f["status"]) for f in report["findings"]}


@pytest.mark.dynamic
@requires_torch
def test_suppressions_cover_observed_and_confirmed_breaks_in_check(tmp_path: Path) -> None:
    root = project(tmp_path)
    proc = run_cli("model.py", "--format", "json", "--root", ".", cwd=root)
    assert found(json.loads(proc.stdout)) == EXPECTED, proc.stdout
    assert proc.returncode == 1  # the two unsuppressed breaks are warnings

    # Without the comments every one of those lines is reported (the comments did the hiding).
    (root / "model.py").write_text("\n".join(line.split("  #")[0] for line in (MODEL + EXAMPLES).splitlines()) + "\n",
                                   encoding="utf-8")
    bare = found(json.loads(run_cli("model.py", "--format", "json", "--root", ".", cwd=root).stdout))
    observed = {line for rule, line, status in bare if status == "observed" and rule == "GB0170"}
    assert observed == {line_of(f"if y.{m}() > 0:") for m in ("sum", "mean", "amax", "amin")}
    confirmed = {(rule, line) for rule, line, status in bare if status == "confirmed"}
    assert {("BRK101", line_of(f"if x.{m}() > 0:")) for m in ("sum", "mean", "amax", "amin")} <= confirmed
    assert ("BRK104", line_of("n = int(x.sum())")) in confirmed
    assert {line for rule, line, _ in bare if rule == "BRK510"} == {line_of("def forward"), line_of("return y * n")}


@pytest.mark.dynamic
@requires_torch
def test_suppressions_cover_breaks_of_breakscan_run(tmp_path: Path) -> None:
    root = project(tmp_path, examples=False)
    (root / "train.py").write_text(SCRIPT, encoding="utf-8")
    proc = run_cli("run", "--backend", "eager", "--format", "json", "-o", "report.json", "--root", ".",
                   "train.py", cwd=root)
    assert proc.stdout.startswith("output "), proc.stdout + proc.stderr
    assert found(json.loads((root / "report.json").read_text())) == EXPECTED


def test_suppressed_findings_stay_out_of_a_static_run_and_its_baseline(tmp_path: Path) -> None:
    root = project(tmp_path)
    proc = run_cli("model.py", "--no-dynamic", "--format", "json", "--root", ".", cwd=root)
    assert found(json.loads(proc.stdout)) == {("BRK101", line_of("if x.amin() > 0:"), "predicted")}
    run_cli("model.py", "--no-dynamic", "--write-baseline", "baseline.json", "--root", ".", cwd=root)
    [entry] = json.loads((root / "baseline.json").read_text())["findings"]
    assert (entry["rule"], entry["code"]) == ("BRK101", "if x.amin() > 0:")


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_output_files_honour_the_umask(tmp_path: Path, umask: int, mode: int) -> None:
    root = project(tmp_path)
    run_cli("model.py", "--no-dynamic", "-f", "sarif", "-o", "report.sarif", "--root", ".", cwd=root, umask=umask)
    run_cli("model.py", "--no-dynamic", "--write-baseline", "baseline.json", "--root", ".", cwd=root, umask=umask)
    for name in ("report.sarif", "baseline.json"):
        assert stat.S_IMODE((root / name).stat().st_mode) == mode, name
        assert (root / name).read_text(encoding="utf-8").strip()


def test_overwriting_an_output_file_keeps_its_mode(tmp_path: Path) -> None:
    root = project(tmp_path)
    for name in ("report.json", "baseline.json"):
        (root / name).write_text("old\n")
        (root / name).chmod(0o640)
    run_cli("model.py", "--no-dynamic", "-f", "json", "-o", "report.json", "--root", ".", cwd=root, umask=0o077)
    run_cli("model.py", "--no-dynamic", "--write-baseline", "baseline.json", "--root", ".", cwd=root, umask=0o077)
    for name in ("report.json", "baseline.json"):
        assert stat.S_IMODE((root / name).stat().st_mode) == 0o640, name
        assert (root / name).read_text() != "old\n"
    assert sorted(p.name for p in root.iterdir() if p.name.startswith(".")) == []  # no temporary file left
