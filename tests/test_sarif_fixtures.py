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


def test_explicit_graph_break_carries_a_mechanical_fix() -> None:
    """BRK209's fix replaces exactly the `torch._dynamo.graph_break()` span with `pass`."""
    doc = fixture_sarif(FIXTURES)
    fixed = [r for r in doc["runs"][0]["results"] if "fixes" in r]
    assert fixed and {r["ruleId"] for r in fixed} == {"BRK209"}
    for result in fixed:
        (change,) = result["fixes"][0]["artifactChanges"]
        (replacement,) = change["replacements"]
        region = replacement["deletedRegion"]
        path = ROOT / change["artifactLocation"]["uri"]
        line = path.read_text(encoding="utf-8").splitlines()[region["startLine"] - 1]
        assert line[region["startColumn"] - 1 : region["endColumn"] - 1].endswith("graph_break()")
        assert replacement["insertedContent"]["text"] == "pass"


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
