"""Optional: the SARIF Multitool validator's GitHub and SARIF rules (`--rule-kind "Gh;Sarif"`).

Uses `$BREAKSCAN_SARIF_MULTITOOL` (the `Sarif.Multitool` binary) when set; else installs the npm
package `@microsoft/sarif-multitool` once into a cache directory (`$BREAKSCAN_TEST_CACHE`, default
`~/.cache/breakscan-tests`). Skips, with the reason, when npm or the package is unavailable.
Fails on any validator result at level `error` or `warning` (the validator's own default levels);
advisory `note`s (e.g. "consider a snippet") are not failures.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from breakscan.catalog import load_catalog
from breakscan.findings import Finding, Frame, Kind, Report, Severity, Status
from breakscan.fix import attach_rewrites
from breakscan.report import sarif
from sarif_helpers import FIXTURE_FILES, FIXTURES, fixture_sarif

PACKAGE = "@microsoft/sarif-multitool@5"
PLATFORM = {"linux": "linux", "darwin": "darwin", "win32": "win32"}.get(sys.platform, sys.platform)


def _cache() -> Path:
    return Path(os.environ.get("BREAKSCAN_TEST_CACHE", Path.home() / ".cache" / "breakscan-tests")) / "sarif-multitool"


def _binary_in(prefix: Path) -> Path:
    name = "Sarif.Multitool.exe" if PLATFORM == "win32" else "Sarif.Multitool"
    return prefix / "node_modules" / "@microsoft" / f"sarif-multitool-{PLATFORM}" / name


def multitool() -> Path:
    """The validator binary, installing it with npm if needed; pytest.skip when impossible."""
    explicit = os.environ.get("BREAKSCAN_SARIF_MULTITOOL")
    if explicit:
        return Path(explicit)
    prefix = _cache()
    binary = _binary_in(prefix)
    if not binary.exists():
        npm = shutil.which("npm")
        if npm is None:
            pytest.skip("SARIF Multitool not installed and npm is not on PATH")
        prefix.mkdir(parents=True, exist_ok=True)
        try:
            proc = subprocess.run([npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", PACKAGE],
                                  capture_output=True, text=True, timeout=600)
        except subprocess.TimeoutExpired:
            pytest.skip(f"npm install {PACKAGE} timed out")
        if proc.returncode != 0 or not binary.exists():
            tail = " ".join((proc.stderr or proc.stdout).split()[-40:])
            pytest.skip(f"npm install {PACKAGE} did not provide {binary.name} for {PLATFORM}: {tail}")
    # npm often skips the package's postinstall `chmod u+x` (ignore-scripts); set the run bit.
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return binary


def validate(tool: Path, files: list[Path], tmp_path: Path) -> list[dict]:
    """Validator results at level error or warning for `files`."""
    out = tmp_path / "validation.sarif"
    proc = subprocess.run([str(tool), "validate", "--rule-kind", "Gh;Sarif", "--output", str(out), *map(str, files)],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    if not out.exists():
        pytest.fail(f"the validator wrote no log (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    log = json.loads(out.read_text(encoding="utf-8-sig"))
    results = [r for run in log["runs"] for r in run.get("results", [])]
    problems = [r for r in results if r.get("level", "warning") in ("error", "warning")]
    assert proc.returncode == 0 or problems, proc.stdout + proc.stderr
    return problems


def _describe(problems: list[dict]) -> str:
    return "\n".join(
        f"{p['ruleId']} {p.get('level', 'warning')}: {p['message'].get('arguments') or p['message'].get('text')}"
        for p in problems
    )


def test_every_fixture_passes_the_github_rules(tmp_path: Path) -> None:
    tool = multitool()
    files = []
    for n, path in enumerate([*FIXTURE_FILES, FIXTURES]):
        target = tmp_path / f"fixture-{n}.sarif"
        target.write_text(json.dumps(fixture_sarif(path), indent=2), encoding="utf-8")
        files.append(target)
    problems = validate(tool, files, tmp_path)
    assert not problems, _describe(problems)


def test_a_log_with_every_feature_passes_the_github_rules(tmp_path: Path) -> None:
    """Stacks (codeFlows, relatedLocations), region chains, GB-id rules, refuted notes, error
    notifications, the result cap's notification, a fix (BRK209's rewrite) and non-ASCII columns."""
    tool = multitool()
    src = tmp_path / "src"
    src.mkdir()
    model = src / "model.py"
    model.write_text(
        "import torch\n\ndef f(x):\n    s = 'é𝄞'; y = x.item()\n    torch._dynamo.graph_break()\n    return x\n",
        encoding="utf-8",
    )
    outer = src / "outer.py"
    outer.write_text("def g(x):\n    return f(x)\n", encoding="utf-8")
    base = dict(kind=Kind.GRAPH_BREAK, path=str(model), message="m", gb_ids=("GB0124",))
    findings = [
        Finding("BRK102", line=4, column=19, end_column=27, status=Status.CONFIRMED,
                stack=(Frame(str(outer), 2, "g", 12), Frame(str(model), 4, "f", 19)), **base),
        Finding("BRK209", line=5, column=5, end_column=32, chain=("Model.forward", "f"), **base),
        Finding("GB0170", line=6, column=5, status=Status.OBSERVED, **base),
        Finding("BRK102", line=6, column=5, status=Status.REFUTED, **base),
        Finding("BRK901", line=1, column=1, severity=Severity.ERROR,
                **{**base, "kind": Kind.ERROR, "message": "cannot parse"}),
    ]
    findings = attach_rewrites(findings, load_catalog())  # BRK209's rewrite becomes a SARIF fix
    report = Report(root=tmp_path, findings=findings, torch_version="2.13.0", dynamic_ran=True)
    target = tmp_path / "features.sarif"
    target.write_text(sarif.render(report, load_catalog(), max_results=4), encoding="utf-8")
    doc = json.loads(target.read_text(encoding="utf-8"))
    assert any("fixes" in r for r in doc["runs"][0]["results"])
    problems = validate(tool, [target], tmp_path)
    assert not problems, _describe(problems)
