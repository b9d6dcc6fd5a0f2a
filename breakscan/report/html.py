"""`--format html`: the report as one self-contained page, rendered with Jinja2.

The page holds what the text report holds, laid out for a browser: the run's facts (breakscan
and torch versions, device, command line), a summary (counts per status and per rule, the
dynamic entries), a picture of each entry's graphs in call order (a bar per graph sized by its
op count, each break between graphs labelled with its line and graph-break id, frame fallbacks
and recompiles marked), then the findings in your code by file and those in libraries you call
by the call site that reached them, each with its code frame, fix, Dynamo's explanation and
hints, graph-break links, compile-region chain and user stack.

Self-contained: styles and script are inline (`templates/`), nothing is fetched (a Content
Security Policy forbids it, and allows only the page's own script by its hash). Without
JavaScript everything is shown; the script adds filters by status, rule and file.

Scanned text (source, paths, Dynamo's messages) is untrusted: the environment autoescapes
every value, and control characters are shown as `terminal.clean` spells them.
"""

from __future__ import annotations

import base64
import hashlib
import re
import shlex
from collections import Counter
from importlib import resources
from itertools import groupby
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup, escape

from breakscan import __version__
from breakscan.catalog import Rule
from breakscan.findings import EntryReport, Finding, Kind, Report, Status
from breakscan.report.origin import call_site, display_path, happened_at, shorten_paths, split_by_origin
from breakscan.report.ruleinfo import GB_ID, finding_gb_ids, gb_link, rule_title
from breakscan.report.source import SourceCache, span_parts
from breakscan.report.terminal import CONTEXT_LINES, clean, entry_label, worst_first

_TEMPLATES = "templates"


def render(report: Report, rules: dict[str, Rule]) -> str:
    """The report as one HTML document (UTF-8 text).

    Raises jinja2.TemplateError only on a broken template (a bug, not bad input).
    """
    script = _asset("report.js")
    page = _environment().get_template("report.html")
    return page.render(**page_data(report, rules), style=Markup(_asset("report.css")), script=Markup(script),
                       script_hash=_csp_hash(script))


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.PackageLoader("breakscan.report", _TEMPLATES), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["code_spans"] = code_spans
    return env


_BACKTICKS = re.compile(r"`([^`\n]+)`")


def code_spans(text: str) -> Markup:
    """`text` escaped, then its `backticked` spans (rule messages, fixes) as `<code>`: safe, since
    the escaping comes first and a backtick is no markup."""
    return Markup(_BACKTICKS.sub(r"<code>\1</code>", str(escape(text))))


def _asset(name: str) -> str:
    return resources.files("breakscan.report").joinpath(_TEMPLATES, name).read_text(encoding="utf-8")


def _csp_hash(script: str) -> str:
    """The base64 SHA-256 of an inline script's exact text, for CSP's `'sha256-…'` source."""
    return base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")


def page_data(report: Report, rules: dict[str, Rule]) -> dict[str, Any]:
    """The template's variables: run facts, summary, entries, findings (own / libraries) and filters."""
    sources = SourceCache()
    visible = sorted(report.visible(), key=Finding.sort_key)
    own, libraries = split_by_origin(visible, report.root)
    ids = {id(f): f"f{n}" for n, f in enumerate([*own, *_by_call_site(libraries, report)], 1)}
    mine = {id(f) for f in own}
    views = {id(f): finding_view(f, ids[id(f)], report, rules, sources, library=id(f) not in mine) for f in visible}
    return {
        "run": run_facts(report),
        "summary": summary_view(report, rules),
        "entries": [entry_view(e, report, visible, ids) for e in worst_first(report.entries)],
        "own": [{"title": clean(display_path(path, report.root)), "link": _file_uri(path),
                 "findings": [views[id(f)] for f in group]} for path, group in groupby(own, key=lambda f: f.path)],
        "libraries": _library_groups(libraries, report, views),
        "filters": {
            "statuses": sorted({v["status"] for v in views.values()}, key=_status_order),
            "rules": sorted({clean(f.rule_id) for f in visible}),
            "files": sorted({v["file"] for v in views.values()}),
        },
        "total": len(visible),
    }


def _file_uri(path: str) -> str:
    """A `file:` link to the source file (opened on a click, never fetched by the page), or ""."""
    try:
        return Path(path).resolve().as_uri()
    except (ValueError, OSError):
        return ""


def run_facts(report: Report) -> dict[str, Any]:
    """Versions, device, command line and the run's notes (interruption, program exit)."""
    program_exit = getattr(report, "program_exit", "absent")
    return {
        "version": report.tool_version or __version__,
        "torch": report.torch_version or "",
        "device": report.device,
        "dynamic_ran": report.dynamic_ran,
        "root": report.root.resolve().as_posix(),
        "files_scanned": report.files_scanned,
        "command": clean(shlex.join(report.command)) if report.command else "",
        "baselined": getattr(report, "baselined", 0),
        "fixed": len(report.fixed),
        "interrupted": clean(report.interrupted.message) if report.interrupted else "",
        "program_exit": ("" if program_exit == "absent" else
                         "killed on timeout" if program_exit is None else f"exited with status {program_exit}"),
    }


def summary_view(report: Report, rules: dict[str, Rule]) -> dict[str, Any]:
    """Counts per status (refuted counted while hidden; errors apart) and per rule, most first."""
    counts = Counter(f.status for f in report.findings if f.kind is not Kind.ERROR)
    statuses = [{"name": s.value, "count": counts[s],
                 "hidden": s is Status.REFUTED and not report.show_refuted and counts[s] > 0} for s in Status]
    errors = sum(f.kind is Kind.ERROR for f in report.visible())
    by_rule = Counter(f.rule_id for f in report.visible())
    rule_rows = [{"id": clean(rid), "count": n, "title": clean(rule_title(rid, rules)),
                  "link": gb_link(rid) if GB_ID.match(rid) else ""}
                 for rid, n in sorted(by_rule.items(), key=lambda kv: (-kv[1], kv[0]))]
    files = len({f.path for f in report.visible()})
    return {"statuses": statuses, "errors": errors, "rules": rule_rows, "files": files}


def entry_view(entry: EntryReport, report: Report, visible: list[Finding], ids: dict[int, str]) -> dict[str, Any]:
    """One entry: its stats, its graphs and breaks in call order (bars), and its recompiles."""
    graphs = [event for event in entry.timeline if "graph" in event]
    largest = max(graphs, key=lambda event: event["ops"]) if len(graphs) > 1 else None  # the first of the largest
    timeline: list[dict[str, Any]] = []
    for event in entry.timeline:
        if "graph" in event:
            timeline.append({"kind": "graph", "graph": event["graph"] + 1, "ops": event["ops"],
                             "largest": event is largest})
            continue
        if not timeline or timeline[-1]["kind"] != "cut":  # breaks with no graph between: one marker
            timeline.append({"kind": "cut", "breaks": []})
        _add_break(timeline[-1]["breaks"], event["break"], entry, report, visible, ids)
    recompiles = [{"anchor": ids.get(id(f), ""), "message": clean(f.message), "calls": f.extra.get("calls") or []}
                  for f in visible if f.entry == entry.name and f.kind is Kind.RECOMPILE]
    return {
        "name": clean(entry_label(entry.name, report)),
        "run_mode": entry.name.startswith("run:"),
        "calls": entry.calls, "graphs": entry.graphs, "breaks": entry.graph_breaks,
        "recompiles_count": entry.recompiles, "ops": entry.ops_per_graph,
        "timeline": timeline, "recompiles": recompiles,
        "fullgraph": _fullgraph(entry, report.root),
        "largest_split_by": shorten_paths(clean(entry.largest_split_by)),
        "error": clean(" ".join(entry.error.split())),
    }


def _add_break(breaks: list[dict[str, Any]], brk: dict[str, Any], entry: EntryReport, report: Report,
               visible: list[Finding], ids: dict[int, str]) -> None:
    """Add a break to a marker's distinct breaks (path, line, GB id; repeats counted, a fallback
    among them marks it): `where`, `line`, `gb_id`, `gb_type`, and its finding's `anchor`."""
    path, line, gb_id = brk.get("path") or "", int(brk.get("line") or 0), brk.get("gb_id") or ""
    for seen in breaks:
        if seen["key"] == (path, line, gb_id):
            seen["count"] += 1
            seen["fallback"] = seen["fallback"] or bool(brk.get("fallback"))
            return
    match = _finding_at(path, line, entry, visible)
    breaks.append({"key": (path, line, gb_id), "count": 1, "fallback": bool(brk.get("fallback")),
                   "where": clean(f"{display_path(path, report.root)}:{line}" if path else ""), "line": line,
                   "gb_id": clean(gb_id), "gb_type": clean(brk.get("gb_type") or "graph break"),
                   "anchor": ids.get(id(match), "") if match else "", "rule": clean(match.rule_id) if match else ""})


def _finding_at(path: str, line: int, entry: EntryReport, visible: list[Finding]) -> Finding | None:
    """The break or fallback finding at path:line (or holding it in its stack), the entry's own first."""
    hits = [f for f in visible if f.kind in (Kind.GRAPH_BREAK, Kind.FRAME_FALLBACK) and (
        (f.path, f.line) == (path, line) or any((fr.path, fr.line) == (path, line) for fr in f.stack))]
    return next((f for f in hits if f.entry == entry.name), hits[0] if hits else None)


def _fullgraph(entry: EntryReport, root: Path) -> dict[str, str]:
    if entry.error:
        return {"verdict": "error", "text": clean(" ".join(entry.error.split()))}
    if entry.fullgraph_ok is None:
        return {"verdict": "unknown", "text": ""}
    if entry.fullgraph_ok:
        return {"verdict": "ok", "text": ""}
    return {"verdict": "no", "text": clean(_root_relative(shorten_paths(" ".join(entry.fullgraph_error.split())), root))}


def _root_relative(text: str, root: Path) -> str:
    """`text` with the root's absolute path prefix cut from the paths it names (Dynamo's messages)."""
    return text.replace(root.resolve().as_posix() + "/", "")


def _by_call_site(findings: list[Finding], report: Report) -> list[Finding]:
    return sorted(findings, key=lambda f: (call_site(f, report.root) or ("~", 0), f.sort_key()))


def _library_groups(findings: list[Finding], report: Report, views: dict[int, dict[str, Any]]) -> list[dict]:
    """Library findings under the call site in your code that reached them (as the text report)."""
    groups = []
    for site, group in groupby(_by_call_site(findings, report), key=lambda f: call_site(f, report.root)):
        title = f"{display_path(site[0], report.root)}:{site[1]} reached" if site else "No call site in your code"
        groups.append({"title": clean(title), "findings": [views[id(f)] for f in group]})
    return groups


def finding_view(f: Finding, anchor: str, report: Report, rules: dict[str, Rule], sources: SourceCache, *,
                 library: bool = False) -> dict[str, Any]:
    """One finding's fields, cleaned for display (the template escapes them).

    `location` is the finding's own (as in JSON and SARIF); a finding in a library is shown
    (`where`, `file`, code frame) where it happened, its call site being its group's title.
    """
    rule = rules.get(f.rule_id)
    location = f"{display_path(f.path, report.root)}:{f.line}:{f.column}"
    shown = _at_library_line(f, sources) if library else f
    file = display_path(shown.path, report.root)
    rewrite = None
    if f.rewrite is not None:
        flag = "--fix" if f.rewrite.safety == "safe" else "--fix --unsafe-fixes"
        rewrite = {"flag": flag, "text": clean(" ".join(f.rewrite.description.split()))}
    return {
        "anchor": anchor,
        "location": clean(location),
        "where": clean(f"{file}:{shown.line}" if library else location),
        "file": clean(file),
        "rule": clean(f.rule_id), "title": clean(rule_title(f.rule_id, rules)),
        "severity": f.severity.value, "kind": f.kind.value,
        "status": "error" if f.kind is Kind.ERROR else f.status.value,
        "message": "\n".join(clean(line) for line in f.message.splitlines()),
        "frame": code_frame(sources.lines(shown.path), shown),
        "fix": clean(" ".join((f.fix or (rule.fix if rule else "")).split())),
        "rewrite": rewrite,
        "explanation": clean(" ".join(f.explanation.split())),
        "hints": [clean(h.strip()) for h in f.hints if h.strip()],
        "gb": [{"id": clean(gb), "link": gb_link(gb) if GB_ID.match(gb) else ""} for gb in finding_gb_ids(f, rules)],
        "chain": [clean(c) for c in f.chain],
        "entry": clean(entry_label(f.entry, report)) if f.entry else "",
        "guard": _guard(f),
        "stack": [{"where": clean(f"{display_path(fr.path, report.root)}:{fr.line}"), "function": clean(fr.function)}
                  for fr in f.stack],
    }


def _at_library_line(f: Finding, sources: SourceCache) -> Finding:
    """`f` moved to where it happened in the library (the innermost stack frame), its span the
    line's code (Dynamo gives no columns there)."""
    path, line = happened_at(f)
    text = sources.line(path, line) or ""
    start = len(text) - len(text.lstrip()) + 1
    return f.replace(path=path, line=line, column=start, end_line=None, end_column=len(text.rstrip()) + 1)


def _guard(f: Finding) -> dict[str, Any] | None:
    """A recompile's or guard failure's guard, its classified cause and the calls that hit it."""
    if f.kind not in (Kind.RECOMPILE, Kind.GUARD_FAILURE) or not f.extra.get("guard_class"):
        return None
    return {"guard": clean(str(f.extra.get("guard") or "")),
            "cause": clean(str(f.extra["guard_class"]).replace("_", " ")),
            "calls": ", ".join(str(c) for c in f.extra.get("calls") or [])}


def code_frame(lines: list[str] | None, f: Finding, context: int = CONTEXT_LINES) -> list[dict[str, Any]]:
    """Source lines around the finding (as the text report's frame): `number`, `marked` (inside
    the span's lines), and the line split into `before` / `span` / `after` (the span is the
    finding's columns on its first line, the whole line on the lines after). Empty when the
    file or the line cannot be read."""
    if lines is None or not 1 <= f.line <= len(lines):
        return []
    last = max(f.line, min(f.end_line or f.line, f.line + 3))
    out = []
    for number in range(max(1, f.line - context), min(len(lines), last + context) + 1):
        text = lines[number - 1]
        if number == f.line:
            before, span, after = span_parts(text, f)
        elif f.line < number <= last:
            before, span, after = "", text, ""
        else:
            before, span, after = text, "", ""
        out.append({"number": number, "marked": f.line <= number <= last,
                    "before": clean(before), "span": clean(span), "after": clean(after)})
    return out


def _status_order(status: str) -> int:
    order = [s.value for s in Status] + ["error"]
    return order.index(status) if status in order else len(order)
