"""JSON reporter: document shape, relative paths, summary counts, deterministic order."""

from __future__ import annotations

import json
from pathlib import Path

from breakscan.catalog import load_catalog
from breakscan.findings import EntryReport, Finding, Kind, Report, Status
from breakscan.report import json as json_report


def finding(path: Path, line: int, **changes) -> Finding:
    return Finding(rule_id="BRK102", kind=Kind.GRAPH_BREAK, path=str(path), line=line, message="m").replace(**changes)


def test_document_has_the_contract_keys(tmp_path: Path) -> None:
    report = Report(root=tmp_path, findings=[], torch_version="2.13.0", dynamic_ran=True, device="cpu", files_scanned=2)
    doc = json.loads(json_report.render(report, load_catalog()))
    assert list(doc) == [
        "version", "root", "torch_version", "dynamic_ran", "device", "command", "interrupted", "files_scanned",
        "summary", "entries", "findings",
    ]
    assert doc["command"] == []
    assert doc["torch_version"] == "2.13.0" and doc["files_scanned"] == 2 and doc["interrupted"] is None
    assert doc["summary"]["by_status"] == {"confirmed": 0, "predicted": 0, "observed": 0, "refuted": 0}


def test_findings_are_relative_sorted_and_counted(tmp_path: Path) -> None:
    findings = [
        finding(tmp_path / "b.py", 1),
        finding(tmp_path / "a.py", 9, status=Status.REFUTED),
        finding(tmp_path / "a.py", 2, rule_id="GB0170", status=Status.OBSERVED),
    ]
    doc = json.loads(json_report.render(Report(root=tmp_path, findings=findings), load_catalog()))
    assert [(f["path"], f["line"]) for f in doc["findings"]] == [("a.py", 2), ("a.py", 9), ("b.py", 1)]
    assert doc["summary"]["by_rule"] == {"BRK102": 2, "GB0170": 1}
    assert doc["summary"]["by_status"]["refuted"] == 1


def test_entries_have_relative_paths_and_output_is_deterministic(tmp_path: Path) -> None:
    timeline = [{"graph": 0, "ops": 3}, {"break": {"path": str(tmp_path / "m.py"), "line": 3, "gb_id": "GB0124",
                                                  "gb_type": "item", "fallback": False}}, {"graph": 1, "ops": 1}]
    entries = [EntryReport("z", path=str(tmp_path / "m.py"), graphs=2, timeline=timeline), EntryReport("a", graphs=1)]
    report = Report(root=tmp_path, findings=[finding(tmp_path / "m.py", 3, extra={"b": 1, "a": 2})], entries=entries)
    text = json_report.render(report, load_catalog())
    doc = json.loads(text)
    assert [e["name"] for e in doc["entries"]] == ["a", "z"]
    assert doc["entries"][1]["path"] == "m.py"
    assert doc["entries"][1]["timeline"][1]["break"]["path"] == "m.py"  # the graphs and breaks, paths relative
    assert report.entries[0].timeline[1]["break"]["path"] == str(tmp_path / "m.py")  # the report is not changed
    assert list(doc["findings"][0]["extra"]) == ["a", "b"]
    report.entries.reverse()
    assert json_report.render(report, load_catalog()) == text
