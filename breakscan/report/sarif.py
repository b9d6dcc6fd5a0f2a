"""SARIF 2.1.0 output, built with sarif-om and valid against the official schema.

Section numbers (§) refer to the SARIF 2.1.0 specification (OASIS, errata 01). Columns in
findings count Unicode code points; SARIF columns here count UTF-16 code units
(`run.columnKind` = `utf16CodeUnits`), converted by reading the source line.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from sarif_om import (
    ArtifactChange,
    ArtifactContent,
    ArtifactLocation,
    CodeFlow,
    Fix,
    Invocation,
    Location,
    LogicalLocation,
    Message,
    Notification,
    PhysicalLocation,
    Region,
    Replacement,
    Result,
    Run,
    RunAutomationDetails,
    SarifLog,
    ThreadFlow,
    ThreadFlowLocation,
    Tool,
    ToolComponent,
)

from breakscan import __version__
from breakscan import fingerprint
from breakscan.catalog import Rule
from breakscan.findings import Finding, Frame, Interruption, Kind, Report, Status
from breakscan.report.sarif_json import Properties, to_json
from breakscan.report.sarif_rules import descriptor
from breakscan.report.source import SourceCache

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://pypi.org/project/breakscan/"
SRCROOT = "%SRCROOT%"
AUTOMATION_ID = "breakscan/"
FINGERPRINT_KEY = fingerprint.KEY
MAX_RESULTS = 25_000  # GitHub code scanning keeps at most 25,000 results per run
_STATUS_ORDER = {Status.CONFIRMED: 0, Status.OBSERVED: 1, Status.PREDICTED: 2, Status.REFUTED: 3}


def render(report: Report, rules: dict[str, Rule], *, max_results: int = MAX_RESULTS) -> str:
    """The SARIF log as JSON text (UTF-8, indented, newline-terminated)."""
    doc = to_json(build_log(report, rules, max_results=max_results))
    doc = {"$schema": doc["$schema"], "version": doc["version"], "runs": doc["runs"]}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def build_log(report: Report, rules: dict[str, Rule], *, max_results: int = MAX_RESULTS) -> SarifLog:
    """One run (§3.14) holding every finding, refuted ones included (level `note`).

    Results beyond `max_results` are dropped, least severe first, with a notification.
    """
    sources = SourceCache()
    findings = sorted(report.findings, key=file_order)
    prints = fingerprints(findings, report.root, sources)
    kept = _most_severe(range(len(findings)), findings, max_results)
    rule_ids = sorted({findings[i].rule_id for i in kept})
    index = {rid: n for n, rid in enumerate(rule_ids)}
    levels = {findings[i].rule_id: result_level(findings[i]) for i in reversed(kept)}
    driver = ToolComponent(
        name="breakscan",
        version=report.tool_version or __version__,
        semantic_version=report.tool_version or __version__,
        information_uri=INFORMATION_URI,
        rules=[descriptor(rid, rules, levels[rid]) for rid in rule_ids],
    )
    results = [
        _result(findings[i], index[findings[i].rule_id], prints[i], report.root, sources) for i in kept
    ]
    run = Run(
        tool=Tool(driver=driver),
        automation_details=RunAutomationDetails(id=AUTOMATION_ID),
        column_kind="utf16CodeUnits",
        original_uri_base_ids={SRCROOT: ArtifactLocation(uri=root_uri(report.root))},
        invocations=[_invocation(findings, len(findings) - len(kept), report.root, sources, report.interrupted,
                                 report.command)],
        results=results,
        properties=_run_properties(report),
    )
    return SarifLog(version="2.1.0", schema_uri=SCHEMA_URI, runs=[run])


file_order = fingerprint.file_order


def result_level(finding: Finding) -> str:
    """§3.27.10 `level`: the finding's severity; `note` for a refuted prediction."""
    return "note" if finding.status is Status.REFUTED else finding.severity.value


def root_uri(root: Path) -> str:
    """The `file://` URI of the scan root, ending in `/` as §3.14.14 requires for a base."""
    uri = root.resolve().as_uri()
    return uri if uri.endswith("/") else uri + "/"


def artifact_location(path: str, root: Path) -> ArtifactLocation:
    """§3.4: a URI relative to `%SRCROOT%` (§3.4.3 uriBaseId), or absolute `file://` outside it."""
    uri = fingerprint.relative_uri(path, root)
    return ArtifactLocation(uri=uri) if uri.startswith("file:") else ArtifactLocation(uri=uri, uri_base_id=SRCROOT)


def utf16_column(line: str | None, column: int) -> int:
    """1-based code-point `column` on `line` as a 1-based UTF-16 code-unit column (§3.30.6).

    Columns past the end of the line (or an unknown line) count one unit per code point.
    """
    if line is None or column <= 1:
        return max(column, 1)
    prefix = line[: column - 1]
    units = len(prefix.encode("utf-16-le")) // 2
    return 1 + units + max(0, column - 1 - len(prefix))


def fingerprints(findings: list[Finding], root: Path, sources: SourceCache) -> list[dict[str, str]]:
    """§3.27.17 `partialFingerprints`, stable when lines are inserted above a finding.

    The recipe lives in `breakscan.fingerprint`, shared with baselines.
    """
    return [{FINGERPRINT_KEY: value} for value in fingerprint.fingerprints(findings, root, sources)]


def _most_severe(indices: range, findings: list[Finding], limit: int) -> list[int]:
    """The `limit` most severe indices (severity, then status), back in file order."""
    if len(indices) <= limit:
        return list(indices)

    def badness(i: int) -> tuple[int, int, int]:
        f = findings[i]
        return (-f.severity.rank, _STATUS_ORDER[f.status], i)

    return sorted(sorted(indices, key=badness)[: max(limit, 0)])


def _result(f: Finding, rule_index: int, prints: dict[str, str], root: Path, sources: SourceCache) -> Result:
    """§3.27: one result; `locations[0]` is the primary location (GitHub reads only that)."""
    frames = list(f.stack)
    related = [fr for fr in frames if (fr.path, fr.line) != (f.path, f.line)]
    return Result(
        rule_id=f.rule_id,
        rule_index=rule_index,
        level=result_level(f),
        message=Message(text=f.message),
        locations=[_finding_location(f, root, sources)],
        partial_fingerprints=prints,
        code_flows=[_code_flow(f, root, sources)] if (frames or f.chain) else None,
        fixes=_fixes(f, root, sources),
        related_locations=[
            _frame_location(fr, root, sources, ident=n) for n, fr in enumerate(related)
        ]
        or None,
        properties=_result_properties(f),
    )


def _fixes(f: Finding, root: Path, sources: SourceCache) -> list[Fix] | None:
    """§3.27.30 `fixes`: the finding's rewrite (breakscan.fix), the same edits `--fix` applies.

    Each edit is a `replacement` (§3.57): `deletedRegion` (whole lines, UTF-16 columns; an empty
    region inserts) and `insertedContent`. Unsafe rewrites say so in their description.
    """
    if f.rewrite is None or f.cell is not None:  # a notebook's edits are not edits of its JSON text
        return None
    replacements = [
        Replacement(
            deleted_region=Region(
                start_line=e.line,
                start_column=utf16_column(sources.line(f.path, e.line), e.column),
                end_line=e.end_line,
                end_column=utf16_column(sources.line(f.path, e.end_line), e.end_column),
            ),
            inserted_content=ArtifactContent(text=e.text),
        )
        for e in sorted(f.rewrite.edits, key=lambda e: (e.line, e.column))
    ]
    description = " ".join(f.rewrite.description.split())
    if f.rewrite.safety != "safe":
        description += " (unsafe fix: applied by `breakscan --fix --unsafe-fixes`)"
    change = ArtifactChange(artifact_location=artifact_location(f.path, root), replacements=replacements)
    return [Fix(description=Message(text=description), artifact_changes=[change])]


def _result_properties(f: Finding) -> Properties:
    extra: dict[str, object] = {
        "breakscan/status": f.status.value,
        "breakscan/kind": f.kind.value,
        "breakscan/gbIds": list(f.gb_ids),
    }
    if f.cell is not None:
        extra.update({"breakscan/cell": f.cell, "breakscan/cellLine": f.line, "breakscan/cellColumn": f.column})
    if f.chain:
        extra["breakscan/chain"] = list(f.chain)
    if f.entry:
        extra["breakscan/entry"] = f.entry
    if f.fix:
        extra["breakscan/fix"] = f.fix
    if "ranks" in f.extra:  # `breakscan run --nproc-per-node`: the ranks that saw it
        extra["breakscan/ranks"] = list(f.extra["ranks"])
        if f.extra.get("missing_ranks"):
            extra["breakscan/missingRanks"] = list(f.extra["missing_ranks"])
    if f.extra.get("expected"):  # BRK521: a split made on purpose (DDPOptimizer), not a user break
        extra["breakscan/expected"] = True
    return Properties(extra=extra)


def _region(
    sources: SourceCache,
    path: str,
    line: int,
    column: int | None,
    end_line: int | None,
    end_column: int | None,
) -> Region:
    """§3.30: 1-based lines and UTF-16 columns; `endColumn` is exclusive (§3.30.8).

    An end before the start is dropped.
    """
    line, column = max(line, 1), max(column or 1, 1)
    region = Region(start_line=line, start_column=utf16_column(sources.line(path, line), column))
    last = end_line if end_line is not None else line
    if end_line is not None and end_line >= line:
        region.end_line = end_line
    if end_column is not None and (last, end_column) > (line, column):
        region.end_column = utf16_column(sources.line(path, last), end_column)
    return region


def _finding_location(f: Finding, root: Path, sources: SourceCache) -> Location:
    if f.cell is not None:
        return _notebook_location(f, root, sources)
    region = _region(sources, f.path, f.line, f.column, f.end_line, f.end_column)
    physical = PhysicalLocation(artifact_location=artifact_location(f.path, root), region=region)
    return Location(physical_location=physical)


def _notebook_location(f: Finding, root: Path, sources: SourceCache) -> Location:
    """A finding in a notebook cell: the `.ipynb` file itself, at the line of its JSON text that
    holds the flagged source line, plus the cell as a logical location (§3.33) and properties.

    Why the JSON text: GitHub code scanning shows an alert on the lines of the file in the
    repository (`physicalLocation.artifactLocation.uri` with at least `region.startLine` is
    what it requires: GitHub's "SARIF support for code scanning"; sarif-sdk's GH1003 rule),
    and an `.ipynb` file's lines are its JSON. nbformat stores each source line as one JSON
    string on its own line, so that line holds exactly the flagged code; the columns are those
    of the code inside the JSON string (escapes counted). The cell and the line in it, as the
    other formats give them, are in the result's `breakscan/cell`, `breakscan/cellLine` and
    `breakscan/cellColumn` properties and in the logical location `cell N`. A cell whose
    place in the text is unknown (source stored as one string) gets line 1 of the file.
    """
    start = sources.file_position(f.path, f.cell, f.line, f.column)
    if start is None:
        region = Region(start_line=1)
    else:
        region = Region(start_line=start[0], start_column=utf16_column(start[2], start[1]))
        end = (sources.file_position(f.path, f.cell, f.end_line, f.end_column)
               if f.end_line is not None and f.end_column is not None else None)
        if end is not None and end[:2] > start[:2]:
            region.end_line = end[0]
            region.end_column = utf16_column(end[2], end[1])
    physical = PhysicalLocation(artifact_location=artifact_location(f.path, root), region=region)
    return Location(physical_location=physical, logical_locations=[
        LogicalLocation(name=f"cell {f.cell}", fully_qualified_name=f"{fingerprint.relative_uri(f.path, root)}"
                        f":cell {f.cell}", kind="module")],
        properties=Properties(extra={"breakscan/cell": f.cell, "breakscan/cellLine": f.line,
                                     "breakscan/cellColumn": f.column}))


def _frame_location(fr: Frame, root: Path, sources: SourceCache, ident: int | None = None) -> Location:
    region = _region(sources, fr.path, fr.line, fr.column, None, None)
    return Location(
        id=ident if ident is not None else -1,
        physical_location=PhysicalLocation(artifact_location=artifact_location(fr.path, root), region=region),
        message=Message(text=f"in {fr.function}" if fr.function else "stack frame"),
    )


def _code_flow(f: Finding, root: Path, sources: SourceCache) -> CodeFlow:
    """§3.36: one thread flow, outermost first, innermost last.

    From the user stack when there is one, else the compile-region chain (logical locations,
    §3.33) ending at the finding's own location.
    """
    if f.stack:
        steps = [_frame_location(fr, root, sources) for fr in f.stack]
        text = "user stack, innermost last"
    else:
        steps = [
            Location(logical_locations=[LogicalLocation(fully_qualified_name=name, kind="function")])
            for name in f.chain
        ]
        steps.append(_finding_location(f, root, sources))
        text = "compile region: " + " → ".join(f.chain)
    flow = ThreadFlow(
        locations=[ThreadFlowLocation(location=loc, nesting_level=n) for n, loc in enumerate(steps)]
    )
    return CodeFlow(thread_flows=[flow], message=Message(text=text))


def _invocation(findings: list[Finding], omitted: int, root: Path, sources: SourceCache,
                interrupted: Interruption | None = None, command: tuple[str, ...] = ()) -> Invocation:
    """§3.20: `executionSuccessful` is false when any finding is one of breakscan's own errors,
    or when Ctrl-C/SIGTERM cut the run short (then also `exitCode`, 130 for SIGINT, §3.20.12).
    `command` (the CLI's words) gives `commandLine` (§3.20.2, shell-quoted) and `arguments`
    (§3.20.3, the words after the program name).

    Each `error`-kind finding is also one of its `toolExecutionNotifications` (§3.58 notification),
    and so is the interruption.
    """
    errors = [f for f in findings if f.kind is Kind.ERROR]
    notes = [
        Notification(
            level="error",
            message=Message(text=f"{f.rule_id}: {f.message}"),
            locations=[_finding_location(f, root, sources)],
        )
        for f in errors
    ]
    if omitted:
        notes.append(
            Notification(
                level="warning",
                message=Message(
                    text=f"{omitted} results left out: at most {len(findings) - omitted} per run "
                    "(GitHub code scanning's limit); the most severe were kept"
                ),
            )
        )
    if interrupted is not None:
        notes.append(Notification(level="error", message=Message(text=interrupted.message)))
        invocation = Invocation(execution_successful=False, tool_execution_notifications=notes,
                                exit_code=interrupted.exit_code, exit_code_description=interrupted.message)
    else:
        invocation = Invocation(execution_successful=not errors, tool_execution_notifications=notes or None)
    if command:
        invocation.command_line = shlex.join(command)
        invocation.arguments = list(command[1:])
    return invocation


def _run_properties(report: Report) -> Properties:
    return Properties(
        extra={
            "breakscan/torchVersion": report.torch_version,
            "breakscan/dynamicRan": report.dynamic_ran,
            "breakscan/device": report.device,
            "breakscan/filesScanned": report.files_scanned,
            "breakscan/baselined": getattr(report, "baselined", 0),
        }
    )
