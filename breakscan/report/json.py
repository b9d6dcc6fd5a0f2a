"""`--format json`: the whole report as one deterministic JSON document.

Keys: `version` (breakscan's), `root`, `torch_version`, `dynamic_ran`, `device`, `command`
(the command line that made the report, a list of its words; empty when not made by the CLI),
`interrupted` (null, or `{signal, exit_code, message}` when Ctrl-C/SIGTERM cut the run short), `files_scanned`, `summary` (`by_status`, `by_rule`, `baselined`: findings hidden by
`--baseline`), `entries`, `findings`. Every finding is
included, refuted ones too (with their `status`), as in SARIF; paths are relative to `root`.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from typing import Any

from breakscan import __version__
from breakscan.catalog import Rule
from breakscan.findings import EntryReport, Finding, Report, Status, relative_path


def render(report: Report, rules: dict[str, Rule]) -> str:
    """The report as indented JSON text, newline-terminated; `rules` is unused."""
    return json.dumps(to_dict(report), indent=2, ensure_ascii=False, sort_keys=False) + "\n"


def to_dict(report: Report) -> dict[str, Any]:
    """The JSON document as a dict; findings and entries in a fixed order."""
    root = report.root
    findings = sorted(report.findings, key=lambda f: _finding_key(f, report))
    return {
        "version": report.tool_version or __version__,
        "root": root.resolve().as_posix(),
        "torch_version": report.torch_version,
        "dynamic_ran": report.dynamic_ran,
        "device": report.device,
        "command": list(report.command),
        "interrupted": dataclasses.asdict(report.interrupted) if report.interrupted else None,
        "files_scanned": report.files_scanned,
        "summary": {**summary(report.findings), "baselined": getattr(report, "baselined", 0)},
        "entries": [entry_dict(e, report) for e in sorted(report.entries, key=lambda e: (e.name, e.path))],
        "findings": [_sorted_extra(f.to_dict(root)) for f in findings],
    }


def summary(findings: list[Finding]) -> dict[str, dict[str, int]]:
    """Counts per status (every status, zeros included) and per rule id (sorted)."""
    statuses = Counter(f.status.value for f in findings)
    rules = Counter(f.rule_id for f in findings)
    return {
        "by_status": {s.value: statuses[s.value] for s in Status},
        "by_rule": dict(sorted(rules.items())),
    }


def entry_dict(entry: EntryReport, report: Report) -> dict[str, Any]:
    """An entry's fields, `path`s (the entry's, its call site's, its timeline's breaks) relative to the root."""
    data = dataclasses.asdict(entry)
    data["path"] = relative_path(entry.path, report.root) if entry.path else ""
    data["call_path"] = relative_path(entry.call_path, report.root) if entry.call_path else ""
    for event in data["timeline"]:
        if "break" in event and event["break"].get("path"):
            event["break"]["path"] = relative_path(event["break"]["path"], report.root)
    return data


def _finding_key(f: Finding, report: Report) -> tuple:
    return (relative_path(f.path, report.root), f.line, f.column, f.rule_id, f.status.value, f.message)


def _sorted_extra(data: dict[str, Any]) -> dict[str, Any]:
    data["extra"] = json.loads(json.dumps(data["extra"], sort_keys=True, default=str))
    return data
