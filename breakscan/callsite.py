"""The user's call site as the primary location of a dynamic finding that lies in a library.

DESIGN.md: the primary location is the innermost frame of the user stack inside the scanned
project. The runner already picks it for breaks whose stack reaches into the project; this
module covers the rest (fallbacks and recompiles located by Dynamo's metrics, and entries that
are library callables, e.g. a transformers model yielded by `breakscan_examples()`): such a
finding moves to the innermost project frame of its stack, else to the line of the user's
examples that called its entry. The library location stays in `stack` (innermost, unless the
runner placed it at a library line that called into torch or the standard library).
"""

from __future__ import annotations

import linecache
from pathlib import Path

from breakscan.findings import EntryReport, Finding, Frame, Status
from breakscan.report.origin import in_project  # the runner's, imported on first use


def at_user_call_site(findings: list[Finding], entries: list[EntryReport], root: Path) -> list[Finding]:
    """`findings` with each Dynamo-observed one outside `root` moved to its call site in `root`.

    `entries` give each entry's call site (`call_path`, `call_line`: the examples' `yield`).
    Findings already in the project, and those with no project frame and no known call site,
    are returned unchanged.
    """
    sites = {}
    for e in entries:
        if e.call_path and e.call_line:
            sites.setdefault(e.name, Frame(e.call_path, e.call_line, "breakscan_examples"))
    return [_moved(f, sites.get(f.entry), root) for f in findings]


def _moved(f: Finding, entry_site: Frame | None, root: Path) -> Finding:
    if f.status is not Status.OBSERVED or not f.path or in_project(f.path, root):
        return f
    stack = f.stack
    if not any((fr.path, fr.line) == (f.path, f.line) for fr in stack):  # keep the library site in the stack
        stack = (*stack, Frame(f.path, f.line, str(f.extra.get("function", "")), f.column))
    site = next((fr for fr in reversed(stack) if in_project(fr.path, root)), None)
    if site is None and entry_site is not None and in_project(entry_site.path, root):
        site, stack = entry_site, (entry_site, *stack)
    if site is None:
        return f
    return f.replace(path=site.path, line=site.line, column=site.column or _first_column(site), end_line=None,
                     end_column=None, code="", stack=stack)


def _first_column(frame: Frame) -> int:
    """1-based column of the first non-blank character of the frame's line (1 if unreadable)."""
    text = linecache.getline(frame.path, frame.line)
    return len(text) - len(text.lstrip()) + 1 if text.strip() else 1
