"""Baselines: --write-baseline / --baseline, matching by line-shift-stable fingerprints."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from breakscan import baseline, fingerprint
from breakscan.cli import app
from breakscan.findings import Finding, Kind, Report, Status

MODEL = textwrap.dedent(
    """\
    import torch
    from torch import nn


    class Net(nn.Module):
        def forward(self, x):
            s = x.sum().item()
            print("scale", s)
            return x * s
    """
)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)
    (tmp_path / "model.py").write_text(MODEL, encoding="utf-8")
    return tmp_path


def run(*args: str):
    return CliRunner().invoke(app, ["check", "--no-dynamic", "--root", ".", *args])


def sarif_results(*args: str) -> list[dict]:
    result = run("--format", "sarif", "--exit-zero", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["runs"][0]["results"]


def test_write_baseline_records_every_finding_sorted_and_exits_0(project: Path) -> None:
    result = run("model.py", "--write-baseline", "breakscan-baseline.json")
    assert result.exit_code == 0, result.output
    assert "wrote 2 finding(s)" in result.stderr
    text = (project / "breakscan-baseline.json").read_text(encoding="utf-8")
    doc = json.loads(text)
    assert doc["tool"] == "breakscan" and doc["version"] == 1
    rows = doc["findings"]
    assert [(r["path"], r["rule"]) for r in rows] == [("model.py", "BRK102"), ("model.py", "BRK201")]
    assert rows[0]["code"] == "s = x.sum().item()"
    assert all(set(r) == {"path", "rule", "code", "fingerprint"} for r in rows)  # no line numbers
    assert text.endswith("\n") and text == json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def test_baseline_hides_known_findings_after_lines_are_inserted_above(project: Path) -> None:
    assert run("model.py", "--write-baseline", "base.json").exit_code == 0
    shifted = "import os\nimport sys\n\n\n" + MODEL.replace("class Net", "# a comment\nclass Net")
    (project / "model.py").write_text(shifted, encoding="utf-8")
    assert run("model.py").exit_code == 1  # without the baseline the findings still fail
    result = run("model.py", "--baseline", "base.json")
    assert result.exit_code == 0, result.output
    assert "No findings" in result.stdout and "2 baselined finding(s) hidden" in result.stdout


def test_a_new_break_fails_and_only_it_is_reported(project: Path) -> None:
    assert run("model.py", "--write-baseline", "base.json").exit_code == 0
    source = (project / "model.py").read_text(encoding="utf-8")
    source = "import os\n" + source.replace("return x * s", "n = int(x.max())\n        return x * s * n")
    (project / "model.py").write_text(source, encoding="utf-8")
    result = run("model.py", "--baseline", "base.json")
    assert result.exit_code == 1
    assert "BRK104" in result.stdout
    assert "BRK102" not in result.stdout.split("By status")[0] and "BRK201" not in result.stdout
    assert "2 baselined finding(s) hidden" in result.stdout
    (only,) = sarif_results("model.py", "--baseline", "base.json")
    assert only["ruleId"] == "BRK104"


def test_editing_the_flagged_line_makes_it_new(project: Path) -> None:
    assert run("model.py", "--write-baseline", "base.json").exit_code == 0
    source = (project / "model.py").read_text(encoding="utf-8").replace("x.sum().item()", "x.mean().item()")
    (project / "model.py").write_text(source, encoding="utf-8")
    (only,) = sarif_results("model.py", "--baseline", "base.json")
    assert only["ruleId"] == "BRK102"


def test_sarif_fingerprints_are_the_same_with_and_without_a_baseline(project: Path) -> None:
    """A kept finding keeps the fingerprint it has in a full run (occurrence index included)."""
    source = MODEL.replace("return x * s", "t = x.sum().item()\n        return x * s * t")
    source = source.replace("s = x.sum().item()", "t = x.sum().item()")  # the same text twice
    (project / "model.py").write_text(source, encoding="utf-8")
    full = [r for r in sarif_results("model.py") if r["ruleId"] == "BRK102"]
    second = max(full, key=lambda r: r["locations"][0]["physicalLocation"]["region"]["startLine"])
    second_print = second["partialFingerprints"]["breakscan/v1"]
    base = project / "base.json"
    assert run("model.py", "--write-baseline", str(base)).exit_code == 0
    doc = json.loads(base.read_text(encoding="utf-8"))
    doc["findings"] = [r for r in doc["findings"] if r["fingerprint"] != second_print]
    base.write_text(json.dumps(doc), encoding="utf-8")
    # Only the second of two identical `.item()` lines is new; recounting occurrences over the
    # kept findings alone would give it the first one's fingerprint.
    (kept,) = sarif_results("model.py", "--baseline", str(base))
    assert kept["partialFingerprints"]["breakscan/v1"] == second_print


def test_baseline_fingerprints_are_the_sarif_fingerprints(project: Path) -> None:
    prints = {r["partialFingerprints"]["breakscan/v1"] for r in sarif_results("model.py")}
    assert run("model.py", "--write-baseline", "base.json").exit_code == 0
    doc = json.loads((project / "base.json").read_text(encoding="utf-8"))
    assert {r["fingerprint"] for r in doc["findings"]} == prints


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "does not exist"),
        ("{not json", "cannot read baseline"),
        ('{"findings": []}', "not a breakscan baseline"),
        ('{"tool": "breakscan", "version": 99, "findings": []}', "unsupported baseline version"),
        ('{"tool": "breakscan", "version": 1, "findings": [{"path": "x"}]}', "fingerprint"),
    ],
)
def test_a_bad_baseline_is_a_usage_error(project: Path, content: str | None, message: str) -> None:
    if content is not None:
        (project / "base.json").write_text(content, encoding="utf-8")
    result = run("model.py", "--baseline", "base.json")
    assert result.exit_code == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_refuted_findings_in_the_baseline_are_not_counted_as_hidden(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("x.item()\nx.item()\n", encoding="utf-8")
    findings = [
        Finding("BRK102", Kind.GRAPH_BREAK, str(path), 1, "m", status=Status.REFUTED),
        Finding("BRK102", Kind.GRAPH_BREAK, str(path), 2, "m"),
    ]
    report = Report(root=tmp_path, findings=findings)
    known = set(fingerprint.fingerprints(findings, tmp_path))
    applied = baseline.apply(report, known)
    assert applied.kept == [] and applied.hidden == 1
