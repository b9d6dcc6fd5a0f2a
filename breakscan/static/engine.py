"""Run the static pass over files: parse, index the project, infer regions, match rules."""

from __future__ import annotations

import ast
import stat
import sys
import threading
import os
import traceback
import warnings
from collections.abc import Callable, Iterable
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
    """Parse one file with libcst; a file it cannot read or parse becomes an error Finding.

    Never raises. CPython's own parser checks the file first: it rejects, with a clean
    SyntaxError, MemoryError or RecursionError, the pathological nesting on which libcst's
    native parser overflows the C stack and kills the process; libcst then runs in a thread
    with a large stack (`run_deep`). BRK901 for unreadable or unparsable files, BRK900 when
    libcst itself fails on a file CPython accepts in an unexpected way.
    """
    data = read_source(path)
    if isinstance(data, Finding):
        return data
    rejected = _cpython_rejects(path, data)
    if rejected is not None:
        return rejected
    try:
        module = run_deep(cst.parse_module, data)
    except cst.ParserSyntaxError as exc:
        return _syntax_error(path, data, exc)
    except (UnicodeDecodeError, LookupError, SyntaxError, ValueError) as exc:
        return _error(path, 1, 1, _one_line(f"cannot decode or parse: {exc}"))
    except (RecursionError, MemoryError):
        return _error(path, 1, 1, "cannot parse: expressions nested too deeply")
    except Exception as exc:  # libcst's own bug on a file CPython accepts
        return _error(path, 1, 1, _one_line(f"internal error while parsing: {type(exc).__name__}: {exc}"),
                      INTERNAL_ERROR_RULE)
    return _Parsed(path, _decode(data, module.encoding), module)


def read_source(path: Path) -> bytes | Finding:
    """The bytes of `path`, or a BRK901 finding saying in one line why it cannot be read.

    Directories (a package named `x.py`, or one discovery could not list) and special files
    (a FIFO would block the read forever) are refused before any read.
    """
    try:
        st = path.stat()
        if stat.S_ISDIR(st.st_mode):
            try:
                os.listdir(path)
            except OSError as exc:
                return _error(path, 1, 1, f"cannot read directory: {exc.strerror or exc}")
            return _error(path, 1, 1, "cannot read file: it is a directory")
        if not stat.S_ISREG(st.st_mode):
            return _error(path, 1, 1, "cannot read file: not a regular file")
        return path.read_bytes()
    except OSError as exc:
        return _error(path, 1, 1, f"cannot read file: {exc.strerror or exc}")
    except MemoryError:
        return _error(path, 1, 1, "cannot read file: too large to hold in memory")


def _cpython_rejects(path: Path, data: bytes) -> Finding | None:
    """A BRK901 finding when CPython cannot parse `data` (its location and wording), else None."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(data, str(path), "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as err:  # IndentationError, TabError, bad coding cookie, undecodable bytes
        line, column = err.lineno or 1, err.offset or 1
        return _error(path, line if isinstance(line, int) else 1, column if isinstance(column, int) else 1,
                      _one_line(f"cannot parse: {err.msg}"))
    except (RecursionError, MemoryError):
        return _error(path, 1, 1, "cannot parse: expressions nested too deeply")
    except (ValueError, OverflowError) as exc:  # NUL bytes (3.11), undecodable source
        return _error(path, 1, 1, _one_line(f"cannot decode or parse: {exc}"))
    return None


def _one_line(text: str) -> str:
    """The first line of `text`, at most 300 characters (findings carry one-line reasons)."""
    lines = text.strip().splitlines()
    first = lines[0] if lines else text
    return first if len(first) <= 300 else first[:297] + "..."


DEEP_STACK_BYTES = 512 * 1024 * 1024  # virtual; pages are only committed as the stack grows
DEEP_RECURSION_LIMIT = 40_000
_DEEP_LOCK = threading.Lock()


def run_deep(fn: Callable, *args):
    """`fn(*args)` in a thread with a large stack and a raised recursion limit.

    libcst's native parser and the recursive walkers go one stack frame per nesting level;
    legal code nested a few thousand deep must neither overflow the C stack (a segfault no
    `except` can catch) nor stop at Python's default limit of 1000. Returns `fn`'s result or
    raises its exception. Calls are serialised (the recursion limit is process-wide).
    """
    box: dict = {}

    def target() -> None:
        try:
            box["value"] = fn(*args)
        except BaseException as exc:  # re-raised in the caller's thread
            box["error"] = exc

    with _DEEP_LOCK:
        old_stack = threading.stack_size()
        try:
            threading.stack_size(DEEP_STACK_BYTES)
        except (ValueError, RuntimeError):  # platform refuses: run here, as before
            return fn(*args)
        old_limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old_limit, DEEP_RECURSION_LIMIT))
        try:
            thread = threading.Thread(target=target, name="breakscan-deep", daemon=True)
            thread.start()
            threading.stack_size(old_stack)
            thread.join()
        finally:
            threading.stack_size(old_stack)
            sys.setrecursionlimit(old_limit)
    if "error" in box:
        raise box["error"]
    return box.get("value")


def _decode(data: bytes, encoding: str) -> str:
    """The file's text as Python reads it (coding cookie or UTF-8, BOM dropped). Never raises."""
    try:
        encoding = tokenize.detect_encoding(io.BytesIO(data).readline)[0]
    except SyntaxError:
        pass
    try:
        text = data.decode(encoding, errors="replace")
    except LookupError:
        text = data.decode("utf-8", errors="replace")
    return text.removeprefix("\ufeff")


def _syntax_error(path: Path, data: bytes, exc: cst.ParserSyntaxError) -> Finding:
    """Prefer CPython's own location and wording; libcst's when CPython accepts the file."""
    rejected = _cpython_rejects(path, data)
    if rejected is not None:
        return rejected
    return _error(path, exc.raw_line, exc.raw_column + 1,
                  _one_line(f"cannot parse (libcst): {exc.message}"))


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
            result.findings.extend(_check_module(item, info, index, regions, rule_index, verbose))
        except (RecursionError, Exception) as exc:  # a bug in breakscan must not lose the rest
            detail = traceback.format_exc() if verbose else f"{type(exc).__name__}: {exc}"
            result.findings.append(_error(item.path, 1, 1, f"internal error while checking: {detail}",
                                          INTERNAL_ERROR_RULE))
    result.findings.sort(key=Finding.sort_key)
    return result


def _check_module(item: _Parsed, info: ModuleInfo, index: ProjectIndex, regions: dict,
                  rule_index: RuleIndex, verbose: bool = False) -> list[Finding]:
    own = [r for r in regions.values() if r.module is info]
    if not own:
        return []
    visitor = RegionVisitor(info, index, regions, rule_index)
    for region in own:
        visitor.check_function(region)
    errors = _check_errors(item, visitor.errors, lambda e: e.root.node, rule_index, verbose)
    if not visitor.hits:
        return errors
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
    return errors + findings


def _check_errors(item: _Parsed, errors: list, function_of: Callable, rules: RuleIndex,
                  verbose: bool) -> list[Finding]:
    """BRK900 findings for RegionVisitor methods that raised: one per method and file, at the
    first node that failed, naming the method and the rules it may have missed. Never raises."""
    from breakscan.static.checks import rules_at_risk

    first: dict[str, tuple] = {}
    counts: dict[str, int] = {}
    for err in errors:
        first.setdefault(err.method, err)
        counts[err.method] = counts.get(err.method, 0) + 1
    try:
        spans = Locator(item.module, item.source).spans([(e.node, function_of(e)) for e in first.values()])
        lines = [(span.line, span.column) for span in spans]
    except Exception:  # positions are a nicety here; the finding is not
        lines = [(1, 1)] * len(first)
    findings = []
    for (method, err), (line, column) in zip(first.items(), lines):
        ids = rules_at_risk(method, rules)
        risk = (f"{', '.join(ids)} may be missed there" if ids
                else "type inference failed there; rules in that function may be missed")
        more = f" (and {counts[method] - 1} more node(s))" if counts[method] > 1 else ""
        reason = _one_line(f"{type(err.exc).__name__}: {err.exc}")
        message = (f"internal error in rule check RegionVisitor.{method}{more}: {reason}; {risk}; "
                   f"the other checks still ran on this file")
        if verbose:
            message += "\n" + err.traceback.rstrip()
        findings.append(_error(item.path, line, column, message, INTERNAL_ERROR_RULE))
    return findings
