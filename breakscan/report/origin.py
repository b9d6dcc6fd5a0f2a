"""Where a finding comes from: your code, or a library you call (the terminal groups by it).

A finding is *in a library* when Dynamo observed it (no static rule flagged it: static rules
only look at your files) and the place it happened, the innermost frame of its stack, lies
outside the project: an installed package (`site-packages`), torch, or any file outside the
scan root. Errors (unparsable file, user code that raised, dynamic-pass failures) always count
as yours. Its *call site* is the primary location when that lies in the project (see
`breakscan.callsite`), else the innermost project frame of its stack.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from breakscan.findings import Finding, Kind, Status, relative_path

_OBSERVED_KINDS = (Kind.GRAPH_BREAK, Kind.FRAME_FALLBACK, Kind.RECOMPILE, Kind.GUARD_FAILURE)
_PACKAGES = re.compile(r"^.*[/\\](?:site|dist)-packages[/\\]")


def in_project(path: str, root: Path) -> bool:
    """`breakscan.dynamic.runner.in_project`, imported on first use: only Dynamo-observed findings
    need it, and a static-only run is spared the runner module's import."""
    from breakscan.dynamic.runner import in_project as inside

    return inside(path, root)


def happened_at(f: Finding) -> tuple[str, int]:
    """(path, line) where the finding happened: the innermost stack frame, else its location."""
    return (f.stack[-1].path, f.stack[-1].line) if f.stack else (f.path, f.line)


def in_library(f: Finding, root: Path) -> bool:
    """Whether Dynamo observed `f` in code outside the project (see the module docstring)."""
    return (f.status is Status.OBSERVED and f.kind in _OBSERVED_KINDS
            and not in_project(happened_at(f)[0], root))


def split_by_origin(findings: list[Finding], root: Path) -> tuple[list[Finding], list[Finding]]:
    """(findings in your code, findings in libraries you call), each in the given order."""
    own = [f for f in findings if not in_library(f, root)]
    return own, [f for f in findings if in_library(f, root)]


def call_site(f: Finding, root: Path) -> tuple[str, int] | None:
    """(path, line) in your code that reached a library finding, or None when none is known."""
    if in_project(f.path, root):
        return f.path, f.line
    return next(((fr.path, fr.line) for fr in reversed(f.stack) if in_project(fr.path, root)), None)


def display_path(path: str, root: Path) -> str:
    """`path` as the terminal shows it: relative to `root` inside it; an installed package's
    file from its package (`transformers/models/...`, not `.venv/lib/python3.11/site-packages/...`);
    another file near the root as `../libs/x.py` (at most two levels up), else absolute."""
    shown = relative_path(path, root)
    short = _PACKAGES.sub("", shown)
    if short != shown:
        return short.replace(os.sep, "/")
    if os.path.isabs(shown):
        try:
            rel = os.path.relpath(os.path.normpath(shown), os.path.realpath(root))
        except ValueError:  # another drive
            return shown
        if rel.split(os.sep)[:3].count("..") <= 2:
            return rel.replace(os.sep, "/")
    return shown


def shorten_paths(text: str) -> str:
    """`text` with every installed package's path cut to the package's own (as `display_path`)."""
    return _PACKAGES_IN_TEXT.sub("", text)


_PACKAGES_IN_TEXT = re.compile(r"(?:[A-Za-z]:)?[^\s:\"']*[/\\](?:site|dist)-packages[/\\]")
