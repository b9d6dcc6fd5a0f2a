"""Every fixture's SARIF (static pass, through the CLI) is schema-valid and GitHub-ready."""

from __future__ import annotations

from pathlib import Path

import pytest

from sarif_helpers import FIXTURE_FILES, FIXTURES, ROOT, check_github_requirements, fixture_sarif, validate_schema


def test_there_are_fixtures() -> None:
    assert len(FIXTURE_FILES) >= 5


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.relative_to(FIXTURES).as_posix())
def test_fixture_sarif_is_valid(path: Path) -> None:
    doc = fixture_sarif(path)
    validate_schema(doc)
    check_github_requirements(doc)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in doc["runs"][0]["results"]}
    assert uris <= {path.relative_to(ROOT).as_posix()}


def test_all_fixtures_in_one_run_are_valid_with_results() -> None:
    doc = fixture_sarif(FIXTURES)
    validate_schema(doc)
    check_github_requirements(doc)
    run = doc["runs"][0]
    assert len(run["results"]) >= 10
    assert any("codeFlows" in r for r in run["results"])


def test_fixable_findings_carry_their_rewrite_as_sarif_fixes() -> None:
    """Only rules with an [autofix] table carry `fixes`; BRK209's deletes the graph_break() line."""
    from breakscan.catalog import load_catalog

    fixable = {rid for rid, rule in load_catalog().items() if rule.autofix}
    doc = fixture_sarif(FIXTURES)
    fixed = [r for r in doc["runs"][0]["results"] if "fixes" in r]
    assert fixed and {r["ruleId"] for r in fixed} <= fixable
    breaks = [r for r in fixed if r["ruleId"] == "BRK209"]
    assert breaks
    for result in breaks:
        (change,) = result["fixes"][0]["artifactChanges"]
        deleted = [rep for rep in change["replacements"]
                   if rep["deletedRegion"]["endLine"] > rep["deletedRegion"]["startLine"]]
        region = deleted[0]["deletedRegion"]
        path = ROOT / change["artifactLocation"]["uri"]
        line = path.read_text(encoding="utf-8").splitlines()[region["startLine"] - 1]
        assert "graph_break()" in line and "graph_break" not in deleted[0]["insertedContent"]["text"]


def test_root_defaults_to_the_git_top_level(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run from a subdirectory without --root: URIs are still relative to the repository top."""
    from typer.testing import CliRunner

    from breakscan.cli import app, git_root

    if git_root(ROOT) != ROOT:
        pytest.skip("the project is not a git checkout here")
    monkeypatch.chdir(FIXTURES)
    target = FIXTURE_FILES[0]
    result = CliRunner().invoke(app, ["check", str(target), "--no-dynamic", "--format", "sarif", "--exit-zero"])
    import json

    run = json.loads(result.stdout)["runs"][0]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == ROOT.resolve().as_uri() + "/"
    for r in run["results"]:
        assert r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == target.relative_to(ROOT).as_posix()
