"""Run the static pass over files: parse, index the project, infer regions, match rules."""

from __future__ import annotations

import traceback
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst
import io
import tokenize

from breakscan.catalog import Rule
from breakscan.findings import Finding, Kind, Severity, Status
from breakscan.static.checks import RegionVisitor, RuleIndex
from breakscan.static.index import ModuleInfo, ProjectIndex, build_module_info
from breakscan.static.positions import Locator
from breakscan.static.regions import RegionFinder
from breakscan.static.suppress import is_suppressed

PARSE_ERROR_RULE = "BRK901"
INTERNAL_ERROR_RULE = "BRK900"


@dataclass
class StaticResult:
    """Findings of the static pass and which files it read."""

    findings: list[Finding] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    regions: int = 0  # functions found inside compile regions


@dataclass
class _Parsed:
    path: Path
    source: str
    module: cst.Module


def parse_file(path: Path) -> _Parsed | Finding:
    """Parse one file with libcst; a file it cannot read or parse becomes an error Finding."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        return _error(path, 1, 1, f"cannot read file: {exc.strerror or exc}")
    try:
        module = cst.parse_module(data)
    except cst.ParserSyntaxError as exc:
        return _syntax_error(path, data, exc)
    except (UnicodeDecodeError, LookupError, SyntaxError, ValueError) as exc:
        return _error(path, 1, 1, f"cannot decode or parse: {exc}".splitlines()[0])
    except RecursionError:
        return _error(path, 1, 1, "cannot parse: expressions nested too deeply")
    return _Parsed(path, _decode(data, module.encoding), module)


def _decode(data: bytes, encoding: str) -> str:
    """The file's text as Python reads it (coding cookie or UTF-8, BOM dropped)."""
    try:
        encoding = tokenize.detect_encoding(io.BytesIO(data).readline)[0]
    except SyntaxError:
        pass
    return data.decode(encoding, errors="replace").removeprefix("\ufeff")


def _syntax_error(path: Path, data: bytes, exc: cst.ParserSyntaxError) -> Finding:
    """Prefer CPython's own location and wording; libcst's when CPython accepts the file."""
    import ast
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(data)
    except SyntaxError as err:
        return _error(path, err.lineno or 1, err.offset or 1, f"cannot parse: {err.msg}")
    except (ValueError, RecursionError, MemoryError):
        pass
    return _error(path, exc.raw_line, exc.raw_column + 1,
                  f"cannot parse: {exc.message}".splitlines()[0])


def _error(path: Path, line: int, column: int, message: str, rule_id: str = PARSE_ERROR_RULE) -> Finding:
    return Finding(rule_id=rule_id, kind=Kind.ERROR, path=str(path), line=max(line, 1),
                   column=max(column, 1), message=message, severity=Severity.ERROR,
                   status=Status.PREDICTED)


def scan_files(files: Iterable[Path], rules: list[Rule], *, regions_mode: str = "modules",
               verbose: bool = False) -> StaticResult:
    """Scan `files` (absolute paths) with `rules` (already filtered by version and selection).

    Returns findings with status `predicted`; unparsable files give BRK901 error findings and
    never stop the scan. An internal error while checking one file gives a BRK900 finding.
    """
    result = StaticResult()
    parsed: list[_Parsed] = []
    index = ProjectIndex()
    infos: dict[Path, ModuleInfo] = {}
    for path in files:
        result.files.append(path)
        item = parse_file(path)
        if isinstance(item, Finding):
            result.findings.append(item)
            continue
        parsed.append(item)
        try:
            info = build_module_info(path, item.module, item.source)
        except RecursionError:
            result.findings.append(_error(path, 1, 1, "cannot index: expressions nested too deeply"))
            continue
        infos[path] = info
        index.add(info)
    regions = RegionFinder(index, regions_mode).compute()
    result.regions = len(regions)
    rule_index = RuleIndex(rules)
    for item in parsed:
        info = infos.get(item.path)
        if info is None:
            continue
        try:
            result.findings.extend(_check_module(item, info, index, regions, rule_index))
        except (RecursionError, Exception) as exc:  # a bug in breakscan must not lose the rest
            detail = traceback.format_exc() if verbose else f"{type(exc).__name__}: {exc}"
            result.findings.append(_error(item.path, 1, 1, f"internal error while checking: {detail}",
                                          INTERNAL_ERROR_RULE))
    result.findings.sort(key=Finding.sort_key)
    return result


def _check_module(item: _Parsed, info: ModuleInfo, index: ProjectIndex, regions: dict,
                  rule_index: RuleIndex) -> list[Finding]:
    own = [r for r in regions.values() if r.module is info]
    if not own:
        return []
    visitor = RegionVisitor(info, index, regions, rule_index)
    for region in own:
        visitor.check_function(region)
    if not visitor.hits:
        return []
    spans = Locator(item.module, item.source).spans([(h.node, h.region.node) for h in visitor.hits])
    lines = item.source.splitlines()
    findings: list[Finding] = []
    seen: set[tuple[str, int]] = set()
    for hit, span in zip(visitor.hits, spans):
        key = (hit.rule.id, span.line)  # one finding per rule and line: a line breaks once
        if key in seen or is_suppressed(hit.rule.id, lines, span.line, span.end_line):
            continue
        seen.add(key)
        code = item.module.code_for_node(hit.node).strip()
        short = code if len(code) <= 60 and "\n" not in code else code.splitlines()[0][:57] + "..."
        findings.append(Finding(
            rule_id=hit.rule.id, kind=hit.rule.kind, path=str(item.path), line=span.line,
            column=span.column, end_line=span.end_line, end_column=span.end_column,
            message=hit.rule.message.replace("{code}", short), severity=hit.rule.severity,
            status=Status.PREDICTED, fix=hit.rule.fix, gb_ids=hit.rule.gb_ids,
            chain=hit.region.chain, code=short,
        ))
    return findings
