"""Reporters: format a merged `Report`; they never compute findings.

Each module exposes `render(report, rules) -> str`:
`terminal` (rich, also `print_report`), `sarif` (SARIF 2.1.0), `json`, `github`
(workflow-command annotations), `html` (one self-contained page, Jinja2 templates). `source` reads scanned files for code frames and columns.
"""

from __future__ import annotations

import importlib
from typing import Callable

from breakscan.catalog import Rule
from breakscan.findings import Report

FORMATS = ("text", "json", "sarif", "github", "html")
_MODULES = {"text": "terminal", "json": "json", "sarif": "sarif", "github": "github", "html": "html"}


def renderer(fmt: str) -> Callable[[Report, dict[str, Rule]], str]:
    """The `render` function for `--format fmt`. Raises ValueError on an unknown format."""
    if fmt not in _MODULES:
        raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    return importlib.import_module(f"breakscan.report.{_MODULES[fmt]}").render
