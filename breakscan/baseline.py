"""Baselines: adopt breakscan on a large codebase by accepting today's findings.

`breakscan check --write-baseline FILE` records every current finding; `--baseline FILE` hides the
findings recorded there, so that only new ones are reported and count toward the exit code. The
summary line says how many were hidden.

Matching is by fingerprint (`breakscan.fingerprint`, the same as SARIF `partialFingerprints`):
rule id, relative path, the stripped source line and its occurrence index. A finding survives
lines inserted or removed above it; editing the flagged line makes it new.

The file is JSON, sorted and indented so it diffs well in review: no line numbers (they would
churn on every edit above a finding), one entry per finding with the path, rule, the flagged
source line for the reader, and the fingerprint that matching uses.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from breakscan.findings import Finding, Report, Status, relative_path
from breakscan.fingerprint import EXTRA, fingerprints, line_text
from breakscan.report.source import SourceCache

FORMAT_VERSION = 1


class BaselineError(Exception):
    """A baseline file that cannot be read or is not a breakscan baseline."""


def entries(report: Report) -> list[dict[str, str]]:
    """One sorted entry per finding of `report` (every status, so static-only runs match too)."""
    sources = SourceCache()
    prints = fingerprints(report.findings, report.root, sources)
    rows = [
        {
            "path": relative_path(f.path, report.root),
            "rule": f.rule_id,
            "code": line_text(f, sources),
            "fingerprint": fp,
        }
        for f, fp in zip(report.findings, prints)
    ]
    unique = {row["fingerprint"]: row for row in rows}  # one entry per fingerprint
    return sorted(unique.values(), key=lambda r: (r["path"], r["rule"], r["code"], r["fingerprint"]))


def dumps(report: Report) -> str:
    """The baseline file's text for `report`: indented, sorted JSON, newline-terminated."""
    doc = {
        "tool": "breakscan",
        "version": FORMAT_VERSION,
        "note": "Findings accepted as of this baseline; see `breakscan check --baseline`.",
        "findings": entries(report),
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def load(path: Path) -> set[str]:
    """The fingerprints recorded in the baseline at `path`. Raises BaselineError."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BaselineError(f"baseline file does not exist: {path}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BaselineError(f"cannot read baseline {path}: {exc}") from None
    if not isinstance(doc, dict) or doc.get("tool") != "breakscan" or not isinstance(doc.get("findings"), list):
        raise BaselineError(f"{path} is not a breakscan baseline (expected a `findings` list)")
    if doc.get("version") != FORMAT_VERSION:
        raise BaselineError(f"{path}: unsupported baseline version {doc.get('version')!r}")
    prints = set()
    for row in doc["findings"]:
        if not isinstance(row, dict) or not isinstance(row.get("fingerprint"), str):
            raise BaselineError(f"{path}: every finding needs a string `fingerprint`")
        prints.add(row["fingerprint"])
    return prints


@dataclass
class Applied:
    """What applying a baseline did: findings kept (new) and how many were hidden."""

    kept: list[Finding]
    hidden: int  # baselined findings that would have been shown (refuted ones count only if shown)


def apply(report: Report, known: set[str]) -> Applied:
    """Drop findings whose fingerprint is in `known`.

    Kept findings carry their fingerprint in `extra` (computed over the full set), so reporters
    print the same `partialFingerprints` as a run without a baseline would.
    """
    prints = fingerprints(report.findings, report.root)
    kept: list[Finding] = []
    hidden = 0
    for finding, fp in zip(report.findings, prints):
        if fp in known:
            hidden += report.show_refuted or finding.status is not Status.REFUTED
            continue
        finding.extra[EXTRA] = fp  # extra is a plain dict; it is not part of equality or hash
        kept.append(finding)
    return Applied(kept=kept, hidden=hidden)
