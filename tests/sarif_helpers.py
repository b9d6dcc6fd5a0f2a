"""Shared by the tests/test_sarif_*.py files: fixture SARIF through the real CLI, and checks."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
from typer.testing import CliRunner

from breakscan.cli import app

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
FIXTURE_FILES = sorted(FIXTURES.rglob("*.py"))


def fixture_sarif(*paths: Path, root: Path = ROOT) -> dict:
    """The SARIF log of a static-pass CLI run over `paths` (relative to `root` in the log)."""
    args = ["check", *map(str, paths), "--no-dynamic", "--format", "sarif", "--root", str(root), "--exit-zero"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def validate_schema(doc: dict) -> None:
    """Validate against the official SARIF 2.1.0 schema (draft-04)."""
    jsonschema.Draft4Validator(SCHEMA).validate(doc)


def check_github_requirements(doc: dict) -> None:
    """What GitHub code scanning needs from a run, beyond the schema."""
    assert "security-severity" not in json.dumps(doc)
    (run,) = doc["runs"]
    assert run["tool"]["driver"]["name"] == "breakscan"
    assert run["automationDetails"]["id"]
    assert isinstance(run["invocations"][0]["executionSuccessful"], bool)
    assert len(run["results"]) <= 25_000
    rules = run["tool"]["driver"].get("rules", [])
    for rule in rules:
        assert rule["shortDescription"]["text"] and rule["help"]["text"] and rule["help"]["markdown"]
        assert 0 < len(rule["fullDescription"]["text"]) <= 1024
        assert rule["defaultConfiguration"]["level"] in ("error", "warning", "note")
        assert rule["properties"]["tags"] and rule["properties"]["precision"]
    ids = [r["id"] for r in rules]
    for result in run["results"]:
        assert ids[result["ruleIndex"]] == result["ruleId"]
        assert result["partialFingerprints"]["breakscan/v1"]
        location = result["locations"][0]["physicalLocation"]
        artifact = location["artifactLocation"]
        assert artifact.get("uriBaseId") == "%SRCROOT%" and not artifact["uri"].startswith("/")
        assert location["region"]["startLine"] >= 1 and location["region"]["startColumn"] >= 1
