"""`--format github`: GitHub Actions workflow commands, one annotation per shown finding.

`::warning file=REL,line=L,col=C,endLine=..,endColumn=..,title=RULE: title::message`, with
`error` / `warning` / `notice` by severity. Refuted findings are left out unless
`report.show_refuted`. Columns are 1-based code points, as findings hold them.
Escaping follows GitHub's runner (`toolkit/packages/core/src/command.ts`).
"""

from __future__ import annotations

import re

from breakscan.catalog import Rule
from breakscan.findings import Finding, Report, Severity, relative_path
from breakscan.report.ruleinfo import rule_title
from breakscan.report.source import SourceCache
from breakscan.report.terminal import clean

_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "notice"}


def render(report: Report, rules: dict[str, Rule]) -> str:
    """One workflow command per line (newline-terminated), in file order."""
    findings = sorted(report.visible(), key=lambda f: (*f.sort_key(), f.status.value, f.message))
    sources = SourceCache()
    text = "".join(annotation(f, report, rules, sources) + "\n" for f in findings)
    if report.interrupted is not None:  # a run cut short: one annotation without a file
        text += f"::error title=breakscan interrupted::{escape_data(report.interrupted.message)}\n"
    return text


def annotation(f: Finding, report: Report, rules: dict[str, Rule], sources: SourceCache | None = None) -> str:
    """The workflow command for one finding. In a notebook, the line and columns are those of
    the `.ipynb` file's JSON text that holds the flagged line (as in SARIF: the file's lines are
    what GitHub annotates; breakscan.report.sarif), and the message names the cell and its line."""
    props = {"file": relative_path(f.path, report.root)}
    if f.cell is not None:
        props.update(_notebook_position(f, sources or SourceCache()))
    else:
        props.update({"line": str(f.line), "col": str(f.column)})
        if f.end_line is not None:
            props["endLine"] = str(f.end_line)
        if f.end_column is not None:
            props["endColumn"] = str(f.end_column)
    props["title"] = f"{f.rule_id}: {rule_title(f.rule_id, rules)}"
    head = ",".join(f"{k}={escape_property(v)}" for k, v in props.items())
    return f"::{_COMMAND[f.severity]} {head}::{escape_data(_message(f))}"


def _notebook_position(f: Finding, sources: SourceCache) -> dict[str, str]:
    start = sources.file_position(f.path, f.cell, f.line, f.column)
    if start is None:
        return {"line": "1"}
    props = {"line": str(start[0]), "col": str(start[1])}
    end = (sources.file_position(f.path, f.cell, f.end_line, f.end_column)
           if f.end_line is not None and f.end_column is not None else None)
    if end is not None and end[:2] > start[:2]:
        props.update({"endLine": str(end[0]), "endColumn": str(end[1])})
    return props


def _message(f: Finding) -> str:
    """The message, its status (and the ranks that saw it, under `breakscan run --nproc-per-node`),
    and the finding's own fix on a second line."""
    text = f"{f.message} [{f.status.value}]"
    if "ranks" in f.extra:
        text += f" [ranks {','.join(str(r) for r in f.extra['ranks']) or '-'}]"
    if f.cell is not None:
        text = f"cell {f.cell}, line {f.line}: {text}"
    fix = " ".join(f.fix.split())
    return f"{text}\nFix: {fix}" if fix else text


def escape_data(text: str) -> str:
    """A command's message: `%`, CR and LF percent-encoded; other control characters (ANSI and
    OSC escapes from scanned source, bidi overrides) shown as `\\xNN` so they never reach the log."""
    text = "".join(part if part in ("\r", "\n") else clean(part) for part in re.split(r"(\r|\n)", text))
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A command property's value: as `escape_data`, plus `:` and `,`."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")
