"""Every fixture's inline `# expect: RULE(status)` markers, checked exactly, static and dynamic.

`RULE(status, torch<2.14)` holds only on the torch versions in the range (the installed one;
no torch installed: every marker). Marked `versions`: bench/versions.py and CI's newest-release
environment run it on every torch release."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from breakscan.catalog import load_catalog, version_in_range
from breakscan.config import Config
from breakscan.config import parse_version
from breakscan.scan import installed_torch_version, run_scan
from tests.conftest import FIXTURES, requires_torch

pytestmark = pytest.mark.versions

EXPECT = re.compile(r"#\s*expect:\s*(?P<items>.+)$")
ITEM = re.compile(r"(?P<rule>[A-Z]+\d+)\((?P<status>confirmed|predicted|observed|refuted)"
                  r"(?:,\s*torch(?P<range>[<>=][^)]*))?\)")
_INSTALLED = installed_torch_version()
TORCH = parse_version(_INSTALLED) if _INSTALLED else None
FIXTURE_FILES = sorted(FIXTURES.glob("*.py"))


def expectations(path: Path, torch: tuple[int, int] | None = TORCH) -> set[tuple[int, str, str]]:
    """{(line, rule id, status)} from the file's `# expect:` comments that hold on `torch`
    (default: the installed version; None: every marker)."""
    found = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        m = EXPECT.search(line)
        if m:
            for item in ITEM.finditer(m.group("items")):
                if item.group("range") and torch and not version_in_range(torch, item.group("range")):
                    continue
                found.add((number, item.group("rule"), item.group("status")))
    return found


def requires_cuda(path: Path) -> bool:
    """A fixture whose docstring says `requires: cuda` (its examples yield nothing on CPU)."""
    return bool(re.search(r"^requires: cuda\b", path.read_text(encoding="utf-8"), re.MULTILINE))


def cuda_available() -> bool:
    import torch

    return torch.cuda.is_available()


def observed_set(findings, path: Path) -> set[tuple[int, str, str]]:
    return {(f.line, f.rule_id, f.status.value) for f in findings if Path(f.path) == path}


# The walking-skeleton rule set; every other rule is exercised by its own examples
# (tests/test_rule_static.py and tests/test_rule_examples.py).
SKELETON_RULES = {"BRK101", "BRK102", "BRK103", "BRK104", "BRK105", "BRK106", "BRK201", "BRK202",
                  "BRK203", "BRK204", "BRK205", "BRK206", "BRK207", "BRK208", "BRK209"}


def test_fixtures_exercise_every_walking_skeleton_rule():
    rules = SKELETON_RULES & set(load_catalog())
    covered = {rule for path in FIXTURE_FILES for _, rule, _ in expectations(path, torch=None)}
    assert len(FIXTURE_FILES) >= 8
    assert rules <= covered, f"rules without a fixture: {sorted(rules - covered)}"


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.name)
def test_static_pass_predicts_exactly_the_expected_lines(path):
    config = Config(dynamic=False)
    report = run_scan([path], config, load_catalog(), root=FIXTURES.parent)
    expected = {(line, rule, "predicted") for line, rule, status in expectations(path)
                if status != "observed"}
    assert observed_set(report.findings, path) == expected


@pytest.fixture(scope="module")
def dynamic_report():
    return run_scan(FIXTURE_FILES, Config(), load_catalog(), root=FIXTURES.parent)


@requires_torch
@pytest.mark.dynamic
@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.name)
def test_merged_report_matches_expectations_exactly(dynamic_report, path):
    if requires_cuda(path) and not cuda_available():
        pytest.skip(f"{path.name} needs a CUDA device (its examples yield nothing on CPU)")
    assert observed_set(dynamic_report.findings, path) == expectations(path)


@requires_torch
@pytest.mark.dynamic
def test_every_confirmed_finding_carries_dynamo_evidence(dynamic_report):
    confirmed = [f for f in dynamic_report.findings if f.status.value == "confirmed"]
    assert confirmed
    for finding in confirmed:
        assert finding.gb_ids and all(re.fullmatch(r"GB\d{4}", g) for g in finding.gb_ids)
        assert finding.stack, finding
        assert Path(finding.stack[-1].path).name == Path(finding.path).name
        assert finding.entry
    entries = {e.name: e for e in dynamic_report.entries}
    clean = next(e for name, e in entries.items() if "CleanModel" in name)
    assert clean.graphs == 1 and clean.graph_breaks == 0 and clean.fullgraph_ok
    gated = next(e for name, e in entries.items() if "GatedMLP" in name)
    assert gated.graphs == 3 and gated.graph_breaks == 2 and gated.fullgraph_ok is False
