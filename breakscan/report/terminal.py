"""The default `--format text` report, drawn with rich.

Findings in your code grouped by file, each with a code frame (span marked with carets), the
fix, the graph-break id(s) with their site links, the compile-region chain and the user stack;
then the findings Dynamo observed in libraries you call, one line each under the call site in
your code that reached them (in full with `verbose`); then a summary: counts per status and per
rule, and the dynamic entries, worst first. Every line is trimmed of trailing spaces (rich pads
wrapped and padded lines to the console width) and fits the console width (CI logs: 80).

Scanned text (source lines, paths, messages) is untrusted: it only ever goes into `Text`
objects, which rich never parses as markup (so `[bold]` prints literally, as
`rich.markup.escape` would make it), after `clean()` has replaced control characters (ANSI
and OSC 8 escapes, bidi overrides) with visible `\\xNN` / `\\uNNNN` spellings.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from itertools import groupby

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.padding import Padding
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

from breakscan.catalog import Rule
from breakscan.findings import EntryReport, Finding, Kind, Report, Severity, Status
from breakscan.report.origin import call_site, display_path, happened_at, shorten_paths, split_by_origin
from breakscan.report.ruleinfo import GB_ID, finding_gb_ids, gb_link, rule_title
from breakscan.report.source import SourceCache, span_parts

CONTEXT_LINES = 2
TAB = "    "
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_SEVERITY_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.NOTE: "cyan"}
_STATUS_STYLE = {
    Status.CONFIRMED: "bold red",
    Status.OBSERVED: "magenta",
    Status.PREDICTED: "yellow",
    Status.REFUTED: "dim",
}


def render(report: Report, rules: dict[str, Rule], *, width: int = 100) -> str:
    """The report as plain text (no colour, no escapes), `width` columns wide.

    Trailing spaces (rich pads wrapped and padded lines to full width) are stripped.
    """
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, color_system=None, force_terminal=False, highlight=False)
    print_report(report, rules, console)
    return "".join(line.rstrip() + "\n" for line in buffer.getvalue().splitlines())


class Trimmed:
    """A renderable printed without trailing spaces on its lines (rich pads wrapped text,
    `Padding` and table titles to the full width; CI logs and `| cat` keep that padding)."""

    def __init__(self, renderable: RenderableType) -> None:
        self.renderable = renderable

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for line in console.render_lines(self.renderable, options, pad=False):
            while line and not line[-1].control and not line[-1].text.strip():
                line.pop()
            if line and not line[-1].control:
                last = line.pop()
                line.append(Segment(last.text.rstrip(), last.style, last.control))
            yield from line
            yield Segment.line()


def print_report(report: Report, rules: dict[str, Rule], console: Console, *, quiet: bool = False,
                 verbose: bool = False) -> None:
    """Print your code's findings by file, then those in libraries (one line each unless
    `verbose`), then the summary unless `quiet`, on `console` (colour if it has any).

    A `quiet` attribute set on the report counts too (the CLI sets one).
    """
    quiet = quiet or bool(getattr(report, "quiet", False))
    sources = SourceCache()
    own, libraries = split_by_origin(sorted(report.visible(), key=Finding.sort_key), report.root)
    if libraries:
        console.print(Text(f"In your code: {len(own)} finding(s)" if own else "In your code: no findings",
                           style="bold"))
        console.print()
    _print_by_file(own, report, rules, sources, console)
    if libraries:
        note = "" if verbose else " (--verbose: in full)"
        console.print(Trimmed(Text(f"In libraries you call: {len(libraries)} finding(s){note}", style="bold")))
        if verbose:
            console.print()
            _print_by_file(libraries, report, rules, sources, console)
        else:
            for line in library_lines(libraries, report):
                console.print(Trimmed(line))
            console.print()
    if not quiet:
        console.print(Trimmed(summary(report, rules)))


def _print_by_file(findings: list[Finding], report: Report, rules: dict[str, Rule], sources: SourceCache,
                   console: Console) -> None:
    for path, group in groupby(findings, key=lambda f: f.path):
        console.print(Trimmed(Text(clean(display_path(path, report.root)), style="bold underline")))
        for finding in group:
            console.print(Trimmed(finding_block(finding, report, rules, sources)))
            console.print()


def library_lines(findings: list[Finding], report: Report) -> list[Text]:
    """Library findings, one line each (cut to the width), under the call site in your code
    that reached them: `path:line reached:` then `  lib/path.py:line RULE message`."""
    out: list[Text] = []
    by_site = sorted(findings, key=lambda f: (call_site(f, report.root) or ("~", 0), f.sort_key()))
    for site, group in groupby(by_site, key=lambda f: call_site(f, report.root)):
        head = Text(no_wrap=True, overflow="ellipsis")
        if site is None:
            head.append("No call site in your code:", style="bold")
        else:
            head.append(clean(f"{display_path(site[0], report.root)}:{site[1]}"), style="bold")
            head.append(" reached:")
        out.append(head)
        for f in group:
            path, line = happened_at(f)
            text = Text("  ", no_wrap=True, overflow="ellipsis")
            text.append(clean(f"{display_path(path, report.root)}:{line}"))
            text.append(" ")
            text.append(clean(f.rule_id), style=_SEVERITY_STYLE[f.severity])
            text.append(" ")
            text.append(clean(" ".join(f.message.split())))
            out.append(text)
    return out


def clean(text: str) -> str:
    """`text` with tabs as spaces and control characters shown as `\\xNN` / `\\uNNNN`."""
    return _UNSAFE.sub(lambda m: _visible(m.group()), text.replace("\t", TAB))


def _visible(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _clean_lines(text: str) -> str:
    """Like `clean`, keeping line breaks (for multi-line messages)."""
    return "\n".join(clean(line) for line in text.splitlines())


def finding_block(f: Finding, report: Report, rules: dict[str, Rule], sources: SourceCache) -> Group:
    """One finding: headline, code frame, fix, graph-break links, chain and stack."""
    parts: list[RenderableType] = [headline(f, report)]
    frame = code_frame(sources.lines(f.path, f.cell), f)
    if frame is not None:
        parts.append(frame)
    parts += [Padding(line, (0, 0, 0, 2), expand=False) for line in _details(f, rules, report)]
    return Group(*parts)


def headline(f: Finding, report: Report) -> Text:
    """`path:line:col RULE [status] message` (`nb.ipynb:cell 3:4:12` in a notebook; no status for
    errors: they are not predictions)."""
    cell = f"cell {f.cell}:" if f.cell is not None else ""  # a notebook's cell, as ruff writes it
    where = f"{display_path(f.path, report.root)}:{cell}{f.line}:{f.column}"
    text = Text()
    text.append(clean(where), style="bold")
    text.append(" ")
    text.append(clean(f.rule_id), style=_SEVERITY_STYLE[f.severity])
    text.append(" ")
    if f.rewrite is not None and f.rewrite.safety == "safe":
        text.append("[*] ", style="bold green")  # `--fix` fixes it (as ruff marks them)
    if f.kind is not Kind.ERROR:
        text.append(f"[{f.status.value}]", style=_STATUS_STYLE[f.status])
        text.append(" ")
    if "ranks" in f.extra:  # `breakscan run --nproc-per-node`: the ranks that saw it
        text.append(f"[ranks {','.join(str(r) for r in f.extra['ranks']) or '-'}]", style="cyan")
        text.append(" ")
    text.append(_clean_lines(f.message))
    return text


def code_frame(lines: list[str] | None, f: Finding, context: int = CONTEXT_LINES) -> Text | None:
    """Source lines around the finding, the span's lines marked `>` and carets under its start.

    None when the file or the line cannot be read.
    """
    if lines is None or not 1 <= f.line <= len(lines):
        return None
    last = max(f.line, min(f.end_line or f.line, f.line + 3))
    first_shown, last_shown = max(1, f.line - context), min(len(lines), last + context)
    width = len(str(last_shown))
    frame = Text(no_wrap=True, overflow="ellipsis")
    for number in range(first_shown, last_shown + 1):
        marked = f.line <= number <= last
        gutter = f"{'>' if marked else ' '} {number:>{width}} |" + (" " if lines[number - 1] else "")
        frame.append(gutter, style="bold" if marked else "dim")
        if number == f.line:
            _append_span_line(frame, lines[number - 1], f)
            frame.append(" " * (width + 3) + "| ", style="dim")
            frame.append(_carets(lines[number - 1], f), style="bold red")
        else:
            frame.append(clean(lines[number - 1]))
        if number != last_shown:
            frame.append("\n")
    return frame


def _append_span_line(frame: Text, line: str, f: Finding) -> None:
    before, span, after = span_parts(line, f)
    frame.append(clean(before))
    frame.append(clean(span), style="bold red underline")
    frame.append(clean(after) + "\n")


def _carets(line: str, f: Finding) -> str:
    before, span, _ = span_parts(line, f)
    offset = cell_len(clean(before)) + max(0, f.column - 1 - len(line))
    return " " * offset + "^" * max(1, cell_len(clean(span)))


def _details(f: Finding, rules: dict[str, Rule], report: Report) -> list[Text]:
    """Fix, why/hints, graph-break links, compile-region chain, entry and user stack."""
    out: list[Text] = []
    rule = rules.get(f.rule_id)
    fix = f.fix or (rule.fix if rule else "")
    if fix:
        out.append(_labelled("fix", " ".join(fix.split()), "green"))
    if f.rewrite is not None:
        flag = "--fix" if f.rewrite.safety == "safe" else "--fix --unsafe-fixes"
        out.append(_labelled(f"autofix ({flag})", " ".join(f.rewrite.description.split()), "green"))
    if f.explanation:
        out.append(_labelled("why", " ".join(f.explanation.split())))
    out += [_labelled("hint", h.strip()) for h in f.hints if h.strip()]
    out += [_gb_line(gb) for gb in finding_gb_ids(f, rules)]
    if f.chain:
        out.append(_labelled("compile region", " -> ".join(f.chain)))
    if f.entry:
        out.append(_labelled("entry", entry_label(f.entry, report)))
    if f.stack:
        out.append(_stack(f, report))
    return out


def _labelled(label: str, value: str, style: str = "") -> Text:
    text = Text()
    text.append(f"{label}: ", style=f"bold {style}".strip())
    text.append(clean(value))
    return text


def _gb_line(gb_id: str) -> Text:
    text = Text()
    text.append("graph break: ", style="bold")
    text.append(clean(gb_id))
    if GB_ID.match(gb_id):  # only link ids that look like ids: the URL is built from it
        link = gb_link(gb_id)
        text.append(" ")
        text.append(link, style=f"link {link}")
    return text


def _stack(f: Finding, report: Report) -> Text:
    text = Text()
    text.append("user stack (innermost last):", style="bold")
    for frame in f.stack:
        where = f"{display_path(frame.path, report.root)}:{frame.line}"
        text.append("\n  " + clean(where))
        if frame.function:
            text.append(" in " + clean(frame.function))
    return text


def summary(report: Report, rules: dict[str, Rule]) -> Group:
    """Totals, counts per status and per rule, and the dynamic entries (worst first)."""
    visible = report.visible()
    files = len({f.path for f in visible})
    if visible:
        head = Text(f"{len(visible)} finding(s) in {files} file(s); {report.files_scanned} file(s) scanned. ")
    else:
        head = Text(f"No findings; {report.files_scanned} file(s) scanned. ", style="green")
    baselined = getattr(report, "baselined", 0)
    if baselined:
        head.append(f"{baselined} baselined finding(s) hidden. ", style="dim")
    head.append(_dynamic_note(report), style="dim")
    head.append(_fix_note(report))
    if hasattr(report, "program_exit"):  # `breakscan run`
        code = report.program_exit
        head.append(" The program " + ("was killed on timeout." if code is None else f"exited with status {code}."),
                    style="bold red" if code else "dim")
    if report.interrupted is not None:
        head.append(" " + clean(report.interrupted.message), style="bold red")
    parts: list[RenderableType] = [head, Text("By status", style="italic"), status_table(report)]
    if visible:
        parts += [Text("By rule", style="italic"), rule_table(report, rules)]
    if report.entries:
        parts += [Text("Dynamic entries (worst first)", style="italic"), *entry_lines(report.entries, report)]
    return Group(*parts)


def entry_label(name: str, report: Report) -> str:
    """An entry's name (`path:qualname`) with its path shortened as `display_path` does."""
    path, sep, qualname = name.rpartition(":")
    return f"{display_path(path, report.root)}{sep}{qualname}" if sep and path else name


def worst_first(entries: list[EntryReport]) -> list[EntryReport]:
    """Entries by graph count, most first (then by breaks, then name): the worst offender on top."""
    return sorted(entries, key=lambda e: (-e.graphs, -e.graph_breaks, e.name))


def entry_lines(entries: list[EntryReport], report: Report) -> list[RenderableType]:
    """Each entry, worst first: its name, then (indented) calls, graphs with ops per graph,
    breaks, recompiles; the `fullgraph=True` verdict (one line, cut to the width); the break
    that splits the largest graph. Lines, not a table: long names and reasons stay readable
    at 80 columns."""
    out: list[RenderableType] = []
    for e in worst_first(entries):
        out.append(Text(clean(entry_label(e.name, report)), style="bold"))
        ops = ", ".join(map(str, e.ops_per_graph))
        calls = "" if e.name.startswith("run:") else f"{e.calls} call(s), "  # run mode does not count calls
        stats = (f"{calls}{e.graphs} graph(s)" + (f" (ops per graph: {ops})" if ops else "")
                 + f", {e.graph_breaks} break(s), {e.recompiles} recompile(s)")
        out.append(Padding(Text(stats), (0, 0, 0, 2)))
        verdict = Text("  fullgraph: ", no_wrap=True, overflow="ellipsis")
        verdict.append_text(_fullgraph_cell(e))
        out.append(verdict)
        if e.largest_split_by:
            split = shorten_paths(clean(e.largest_split_by))
            out.append(Padding(Text("largest graph split by " + split), (0, 0, 0, 2)))
    return out


def _fix_note(report: Report) -> Text:
    """What `--fix` fixed in this run, and how many shown findings it could fix."""
    text = Text()
    fixed = report.fixed
    if fixed:
        files = len({f.path for f in fixed})
        rules = ", ".join(f"{rid} x{n}" for rid, n in sorted(Counter(f.rule_id for f in fixed).items()))
        text.append(f" Fixed {len(fixed)} finding(s) in {files} file(s) ({clean(rules)}); "
                    "the findings above are what remains.", style="bold green")
    rewrites = [f.rewrite for f in report.visible() if f.rewrite is not None]
    safe = sum(r.safety == "safe" for r in rewrites)
    if rewrites:
        text.append(f" [*] {safe} fixable with `breakscan --fix`", style="green")
        if len(rewrites) > safe:
            text.append(f" ({len(rewrites) - safe} more with `--fix --unsafe-fixes`)", style="green")
        text.append(".", style="green")
    return text


def _dynamic_note(report: Report) -> str:
    if not report.dynamic_ran:
        return "Dynamic pass not run: findings are predictions."
    torch = f"torch {report.torch_version}" if report.torch_version else "torch"
    device = f" on {report.device}" if report.device else ""
    return clean(f"Dynamic pass ran with {torch}{device}.")


def status_table(report: Report) -> Table:
    """Findings per status, refuted ones counted even while hidden; errors in a row of their own
    (an unparsable file or a failed run is not a prediction)."""
    counts = Counter(f.status for f in report.findings if f.kind is not Kind.ERROR)
    errors = sum(f.kind is Kind.ERROR for f in report.visible())
    table = Table()
    table.add_column("status")
    table.add_column("findings", justify="right")
    for status in Status:
        hidden = status is Status.REFUTED and not report.show_refuted and counts[status]
        label = Text(status.value + (" (hidden)" if hidden else ""), style=_STATUS_STYLE[status])
        table.add_row(label, str(counts[status]))
    if errors:  # unparsable files, user code that raised, dynamic-pass failures: no status
        table.add_row(Text("error", style=_SEVERITY_STYLE[Severity.ERROR]), str(errors))
    return table


def rule_table(report: Report, rules: dict[str, Rule]) -> Table:
    """Shown findings per rule, most frequent first."""
    counts = Counter(f.rule_id for f in report.visible())
    table = Table()
    table.add_column("rule")
    table.add_column("findings", justify="right")
    table.add_column("title")
    for rule_id, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        table.add_row(Text(clean(rule_id)), str(count), Text(clean(rule_title(rule_id, rules))))
    return table


def _fullgraph_cell(e: EntryReport) -> Text:
    if e.error:
        return Text("error: " + clean(" ".join(e.error.split())), style="bold red")
    if e.fullgraph_ok is None:
        return Text("-")
    if e.fullgraph_ok:
        return Text("ok", style="green")
    reason = shorten_paths(" ".join(e.fullgraph_error.split()))
    return Text("no" + (f": {clean(reason)}" if reason else ""), style="red")
