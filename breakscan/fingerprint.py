"""Finding fingerprints that survive line shifts: SARIF `partialFingerprints` and baselines.

A fingerprint hashes the rule id, the file's path relative to the scan root, the stripped
source line, and the occurrence index of that same (rule, path, text) among earlier findings in
file order. Inserting or deleting lines above a finding leaves it unchanged; editing the flagged
line, renaming the file or changing the rule id changes it. Two identical flagged lines in one
file stay distinct through the occurrence index.

Both the SARIF reporter (GitHub code scanning tracks alerts across runs by it) and baselines
(`--baseline`) use this one definition, so a baseline can be written from any run's findings.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path
from urllib.parse import quote

from breakscan.findings import Finding
from breakscan.report.source import SourceCache

KEY = "breakscan/v1"  # the SARIF partialFingerprints key; bump the suffix if the recipe changes
EXTRA = "breakscan/fingerprint"  # Finding.extra key holding a fingerprint computed earlier


def relative_uri(path: str, root: Path) -> str:
    """`path` relative to `root` as a percent-encoded POSIX URI, or an absolute `file://` URI."""
    absolute = Path(path).resolve()
    try:
        rel = absolute.relative_to(root.resolve())
    except ValueError:
        return absolute.as_uri()
    return quote(rel.as_posix(), safe="/")


def file_order(finding: Finding) -> tuple:
    """File, line, column, rule, then status and message: a total order for stable output."""
    return (*finding.sort_key(), finding.status.value, finding.message)


def line_text(finding: Finding, sources: SourceCache) -> str:
    """The stripped source line of `finding`; its `code`, or `line N`, when the file is gone."""
    text = sources.line(finding.path, finding.line, finding.cell)
    if text is not None:
        return text.strip()
    return finding.code.strip() or f"line {finding.line}"


def fingerprints(findings: list[Finding], root: Path, sources: SourceCache | None = None) -> list[str]:
    """One fingerprint (32 hex digits) per finding, in the order given.

    The occurrence index is counted in file order (`file_order`), whatever order `findings` has.
    A fingerprint already stored in `finding.extra[EXTRA]` wins: baselines compute fingerprints on
    the full set of findings, before hiding the baselined ones, and later reporters must not
    recount occurrence indices over what is left.
    """
    sources = sources or SourceCache()
    order = sorted(range(len(findings)), key=lambda i: file_order(findings[i]))
    seen: Counter[tuple[str, str, str]] = Counter()
    out = [""] * len(findings)
    for i in order:
        f = findings[i]
        key = (f.rule_id, relative_uri(f.path, root), line_text(f, sources))
        digest = hashlib.sha256("\0".join([*key, str(seen[key])]).encode("utf-8")).hexdigest()
        seen[key] += 1
        out[i] = f.extra.get(EXTRA) or digest[:32]
    return out
