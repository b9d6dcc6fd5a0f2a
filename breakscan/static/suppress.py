"""Suppression comments: `# breakscan: ignore[ID,...]`, bare `# breakscan: ignore`, `# noqa: ID`.

The static pass reads them for its own findings (`is_suppressed`); after the merge,
`apply_suppressions` reads them for every finding of either pass (Dynamo's observed breaks and
recompiles included), so a comment on a line covers whatever is located there.
"""

from __future__ import annotations

import re
import tokenize
from collections.abc import Iterable, Mapping
from pathlib import Path

from breakscan.findings import Finding
from breakscan.notebook import is_notebook, module_text
from breakscan.static import unsaved

_BREAKSCAN = re.compile(r"#\s*breakscan:\s*ignore(?:\[(?P<ids>[^\]]*)\])?", re.IGNORECASE)
_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<ids>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
_NEWLINE = re.compile(r"\r\n|\r|\n")
SUPPRESSED = "suppressed"  # Finding.extra key marking a static finding its line suppresses
UNSUPPRESSIBLE = "BRK9"  # breakscan's own errors (a file it could not check, code that raised)


def suppressed_ids(line: str) -> set[str] | None:
    """Rule ids a source line suppresses; `{"*"}` for all; None when it has no such comment."""
    if "#" not in line:
        return None
    found: set[str] = set()
    for pattern in (_BREAKSCAN, _NOQA):
        m = pattern.search(line)
        if m:
            ids = m.group("ids")
            if not ids:
                return {"*"}
            found |= {i.strip().upper() for i in re.split(r"[\s,]+", ids) if i.strip()}
    return found or None


def source_lines(text: str) -> list[str]:
    """`text` split into lines as Python numbers them (`\\n`, `\\r\\n`, `\\r`; never the form
    feeds and other separators `str.splitlines` also breaks on)."""
    return _NEWLINE.split(text)


def is_suppressed(rule_id: str, lines: list[str], first: int, last: int | None = None,
                  gb_ids: tuple[str, ...] = ()) -> bool:
    """Whether `rule_id` (or one of the rule's `gb_ids`) is suppressed on line `first` or
    `last` (1-based) of `lines`.

    A prefix such as `BRK1` suppresses every rule of that family, as `--select` does.
    """
    return _covered((rule_id, *gb_ids), lines, first, last, {})


def _covered(ids: tuple[str, ...], lines: list[str], first: int, last: int | None,
             gb_ids: Mapping[str, tuple[str, ...]]) -> bool:
    for number in {first, last or first}:
        if 1 <= number <= len(lines):
            named = suppressed_ids(lines[number - 1])
            if not named:
                continue
            if "*" in named:
                return True
            # A rule id also names the graph-break ids it maps to (rules/*.toml `gb_ids`).
            expanded = set(named) | {g for rule, gbs in gb_ids.items()
                                     if any(rule.startswith(n) for n in named) for g in gbs}
            if any(i.startswith(n) for i in ids for n in expanded):
                return True
    return False


def read_lines(path: str | Path) -> list[str]:
    """The lines of a source file, decoded as Python would (coding cookie, BOM); undecodable
    bytes are replaced. An unreadable file has no lines (nothing suppressed there)."""
    if is_notebook(path):  # its code cells as one module, in the static pass's lines
        return source_lines(module_text(path) or "")
    try:
        data = unsaved.read_bytes(path)
    except OSError:
        return []
    try:
        encoding, _ = tokenize.detect_encoding(iter(data.splitlines(keepends=True)).__next__)
        text = data.decode(encoding, errors="replace")
    except (SyntaxError, LookupError):
        text = data.decode("utf-8", errors="replace")
    return source_lines(text.removeprefix("\ufeff"))


def apply_suppressions(findings: Iterable[Finding], gb_ids: Mapping[str, tuple[str, ...]]
                       ) -> tuple[list[Finding], list[Finding]]:
    """`findings` split into (kept, suppressed): those a suppression comment covers, of either
    pass, are suppressed.

    A finding is covered when the comment on its first or last line is a bare ignore, or names
    (or prefixes) its rule id, one of its graph-break ids, or a rule whose `gb_ids` (`gb_ids`,
    rule id to GB ids, from the catalog) hold one of them: `# noqa: BRK102` covers Dynamo's
    observed `GB0124` on that line. Static findings marked `extra["suppressed"]` (kept until
    now so that merge could pair them with Dynamo's break on the same line) are dropped too.
    Errors of breakscan itself (`BRK9xx`) are never suppressed. Each file is read once.
    """
    cache: dict[str, list[str]] = {}
    kept: list[Finding] = []
    dropped: list[Finding] = []
    for f in findings:
        if f.rule_id.startswith(UNSUPPRESSIBLE):
            kept.append(f)
            continue
        if f.extra.get(SUPPRESSED):
            dropped.append(f)
            continue
        lines = cache.get(f.path)
        if lines is None:
            lines = cache[f.path] = read_lines(f.path)
        (dropped if _covered((f.rule_id, *f.gb_ids), lines, f.line, f.end_line, gb_ids) else kept).append(f)
    return kept, dropped
