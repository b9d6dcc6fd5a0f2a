"""Run the static pass over files in two phases, in parallel and cached.

Phase A indexes every file with CPython's `ast` (cheap) into picklable summaries; regions are
computed over the whole project index; phase B parses with libcst, and checks, only the files
that hold compile-region code. Both phases run in a process pool (`jobs`) and their results are
cached by content hash (breakscan.static.cache).
"""

from __future__ import annotations

import ast
import gc
import hashlib
import io
import os
import signal
import stat
import sys
import threading
import tokenize
import traceback
import warnings
import weakref
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from breakscan.catalog import Rule
from breakscan.findings import Finding, Kind, Severity, Status
from breakscan.notebook import is_notebook
from breakscan.static import frames, unsaved
from breakscan.static.dynamo_settings import DynamoSettings, callee_names, plain_arguments, silenced
from breakscan.static.index import ModuleInfo, ProjectIndex, build_module_info
from breakscan.static.region_pass import RegionPassFn, compute_regions
from breakscan.static.regions import PARAM_READ_DEPTH, RETURN_READ_DEPTH, Region
from breakscan.static.suppress import SUPPRESSED, is_suppressed, source_lines

if TYPE_CHECKING:  # libcst and the checks built on it are imported only when a file is checked:
    import libcst as cst  # a run whose findings all come from the cache never loads them (0.2 s)
    from concurrent.futures import ProcessPoolExecutor  # a pool only from PARALLEL_MIN_FILES files on

    from breakscan.static.checks import RuleIndex


def __getattr__(name: str):
    if name == "IMPLEMENTED_CHECKS":  # named checks: RegionVisitor's, per function, and the cross-file ones
        from breakscan.static.checks import IMPLEMENTED_CHECKS as per_function

        return frozenset(per_function | set(frames.CHECKS))
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

PARSE_ERROR_RULE = "BRK901"
INTERNAL_ERROR_RULE = "BRK900"
PARALLEL_MIN_FILES = 64  # below this a process pool costs more than it saves
# Cyclic-GC thresholds while a pool runs (workers and the parent unpickling their results):
# parse trees are acyclic and freed by reference counting, and CPython's default (700, 10, 10)
# walks each file's growing tree again and again (about a tenth of the workers' CPU time).
POOL_GC_THRESHOLDS = (50_000, 50, 100)


@dataclass
class StaticResult:
    """Findings of the static pass and which files it read."""

    findings: list[Finding] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    regions: int = 0  # functions found inside compile regions
    cache_hits: int = 0  # files whose checks came from the cache
    # Findings a suppression comment covers: not in `findings`, kept for merge to pair with
    # Dynamo's breaks on their lines (breakscan.static.suppress.apply_suppressions drops both).
    suppressed: list[Finding] = field(default_factory=list)


@dataclass
class _Parsed:
    path: Path
    source: str
    module: cst.Module
    data: bytes = b""  # the file's bytes
    # `source` and `module` are the file with the defs no check reads elided (breakscan.static.elide):
    # for checking only, never printed back as the file
    elided: bool = False


# The libcst trees of files with fixable findings that this process's phase B made, newest last,
# so that the rewrites worked out after the scan (the report's `[*]` markers) need no second
# parse: a run of a few files (pre-commit, an editor) checks them in-process. Workers of a pool
# keep none; a tree takes a few hundred times its file's size in memory.
PARSED_KEPT = 8
_RECENT: dict[Path, _Parsed] = {}


def parsed_again(path: Path) -> _Parsed | Finding:
    """`parse_file(path)`, or the tree this process's phase B already made of `path` when the
    file's bytes are unchanged since (no second libcst parse). Never raises."""
    kept = _RECENT.get(path)
    if kept is not None:
        data = read_source(path)
        if isinstance(data, bytes) and data == kept.data:
            return kept
    return parse_file(path)


def _remember(parsed: _Parsed) -> None:
    mp = sys.modules.get("multiprocessing")  # never imported: not a pool worker
    if parsed.elided or (mp is not None and mp.parent_process() is not None):
        return
    _RECENT.pop(parsed.path, None)
    _RECENT[parsed.path] = parsed
    while len(_RECENT) > PARSED_KEPT:
        del _RECENT[next(iter(_RECENT))]


@dataclass
class FileIndex:
    """Phase A's result for one file: its content digest and index entry, or an error."""

    path: Path
    digest: str
    info: ModuleInfo | None = None
    error: Finding | None = None
    left_out: list[Finding] = field(default_factory=list)  # BRK901 for a notebook's unparsable cells


def parse_unvalidated(data: bytes):
    """`libcst.parse_module(data)` without libcst's per-node `_validate()`: every node the native
    parser builds runs it in `CSTNode.__post_init__` (about 14% of a parse, measured on 89
    transformers modeling files), to catch hand-built trees that could not print back; the
    parser's own nodes are valid by construction (libcst's PERF note on `__post_init__`). The
    check is off only while parsing, under `_PARSE_LOCK`; nodes built meanwhile by another thread
    (the language server's rewrites) skip it too, and it guards no behaviour of theirs. Raises
    what `parse_module` raises."""
    import libcst as cst
    from libcst._nodes.base import CSTNode

    with _PARSE_LOCK:
        validate = CSTNode.__dict__["__post_init__"]
        CSTNode.__post_init__ = _no_validation  # type: ignore[method-assign]
        try:
            return cst.parse_module(data)
        finally:
            CSTNode.__post_init__ = validate  # type: ignore[method-assign]


def _no_validation(self) -> None:
    pass


_PARSE_LOCK = threading.RLock()


def parse_file(path: Path, cpython_checked: bool = False, regions: list[Region] | None = None,
               roots: Collection[str] = ()) -> _Parsed | Finding:
    """Parse one file with libcst; a file it cannot read or parse becomes an error Finding.

    `regions` (this file's region functions, from the index of its current bytes): parse the
    file with the defs no check of them reads elided (breakscan.static.elide; `_Parsed.elided`;
    `roots`: the project's compiled module-level functions, qualified), when the file is UTF-8
    and not a notebook; the whole file when that text does not parse.
    Never raises. CPython's own parser checks the file first: it rejects, with a clean
    SyntaxError, MemoryError or RecursionError, the pathological nesting on which libcst's
    native parser overflows the C stack and kills the process; libcst then runs in a thread
    with a large stack (`run_deep`). BRK901 for unreadable or unparsable files, BRK900 when
    libcst itself fails on a file CPython accepts in an unexpected way.
    """
    data = read_source(path)
    if isinstance(data, Finding):
        return data
    rejected = None if cpython_checked else _cpython_rejects(path, data)  # phase A parsed it already
    if rejected is not None:
        return rejected
    import libcst as cst

    if regions:
        elided = _parse_elided(path, data, regions, roots)
        if elided is not None:
            return elided
    try:
        module = run_deep(parse_unvalidated, data)
    except cst.ParserSyntaxError as exc:
        return _syntax_error(path, data, exc)
    except (UnicodeDecodeError, LookupError, SyntaxError, ValueError) as exc:
        return _error(path, 1, 1, _one_line(f"cannot decode or parse: {exc}"))
    except (RecursionError, MemoryError):
        return _error(path, 1, 1, "cannot parse: expressions nested too deeply")
    except Exception as exc:  # libcst's own bug on a file CPython accepts
        return _error(path, 1, 1, _one_line(f"internal error while parsing: {type(exc).__name__}: {exc}"),
                      INTERNAL_ERROR_RULE)
    return _Parsed(path, _decode(data, module.encoding), module, data)


def read_source(path: Path) -> bytes | Finding:
    """The bytes of `path`, or a BRK901 finding saying in one line why it cannot be read.

    Directories (a package named `x.py`, or one discovery could not list) and special files
    (a FIFO would block the read forever) are refused before any read.
    """
    if unsaved.held(path):  # an editor's text (the language server): never the disk's
        return unsaved.read_bytes(path)
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
        data = path.read_bytes()
        return notebook_source(path, data) if is_notebook(path) else data
    except OSError as exc:
        return _error(path, 1, 1, f"cannot read file: {exc.strerror or exc}")
    except MemoryError:
        return _error(path, 1, 1, "cannot read file: too large to hold in memory")


def notebook_source(path: Path, data: bytes) -> bytes | Finding:
    """A notebook's code cells as one module (breakscan.notebook), or a BRK901 finding when
    nbformat cannot read it. Every line of the static pass, its cache and its suppressions
    counts in this module's lines; reports map them back to cells (breakscan.notebook)."""
    from breakscan.notebook import NotebookError, module_bytes

    try:
        return module_bytes(data)
    except NotebookError as exc:
        return _error(path, 1, 1, _one_line(f"cannot read notebook: {exc}"))
    except ImportError:
        return _error(path, 1, 1, "cannot read notebook: nbformat is not installed (pip install nbformat)")


def left_out_cells(path: Path) -> list[Finding]:
    """A BRK901 finding for each code cell of notebook `path` that is not Python: its lines are
    comments in the module (breakscan.notebook.left_out), so the other cells are still scanned.
    At the cell's module line; reports place it in its cell. [] when it cannot be read."""
    from breakscan.notebook import NotebookError, converted

    try:
        module = converted(unsaved.read_bytes(path))
    except (OSError, NotebookError, ImportError):
        return []
    return [_error(path, cell.first + cell.error.line - 1, cell.error.column,
                   _one_line(f"{cell.error.message} (cell {cell.index} is left out of the scan; the other cells "
                             "are scanned)"))
            for cell in module.cells if cell.error is not None]


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


def _syntax_error(path: Path, data: bytes, exc: "cst.ParserSyntaxError") -> Finding:
    """Prefer CPython's own location and wording; libcst's when CPython accepts the file."""
    rejected = _cpython_rejects(path, data)  # rare path: libcst failed, so ask CPython for its wording
    if rejected is not None:
        return rejected
    return _error(path, exc.raw_line, exc.raw_column + 1,
                  _one_line(f"cannot parse with libcst, though CPython can (a libcst limit, e.g. thousands of "
                            f"implicitly concatenated strings): {exc.message}"))


def _error(path: Path, line: int, column: int, message: str, rule_id: str = PARSE_ERROR_RULE) -> Finding:
    return Finding(rule_id=rule_id, kind=Kind.ERROR, path=str(path), line=max(line, 1),
                   column=max(column, 1), message=message, severity=Severity.ERROR,
                   status=Status.PREDICTED)


# phase A ---------------------------------------------------------------------------------------
def file_digest(data: bytes) -> str:
    """Content digest used as the cache key of a file (BLAKE2b, 20 bytes, hex)."""
    return hashlib.blake2b(data, digest_size=20).hexdigest()


def _elided_text(path: Path, data: bytes, regions: list[Region], roots: Collection[str]) -> str | None:
    """`data`'s text with the defs no check of `regions` reads elided (breakscan.static.elide),
    or None: nothing to elide, another encoding than UTF-8, or a notebook."""
    from breakscan.static.elide import elided_source

    if not regions or is_notebook(path) or data.startswith(b"\xef\xbb\xbf"):
        return None
    try:
        if tokenize.detect_encoding(io.BytesIO(data).readline)[0] != "utf-8":
            return None
        text = data.decode("utf-8")
    except (SyntaxError, UnicodeDecodeError):
        return None
    return elided_source(text, regions[0].module, regions, roots)


def _parse_elided(path: Path, data: bytes, regions: list[Region], roots: Collection[str],
                  deep: bool = True) -> _Parsed | None:
    """`data` parsed as `_elided_text` gives it (in run_deep unless `deep` is False: the caller
    runs there already), or None when there is no such text or it does not parse (the caller
    parses the whole file and reports what it must)."""
    source = _elided_text(path, data, regions, roots)
    if source is None:
        return None
    try:
        module = run_deep(parse_unvalidated, source) if deep else parse_unvalidated(source)
    except Exception:  # breakscan's elision at fault: the whole file decides
        return None
    return _Parsed(path, source, module, data, elided=True)


def index_file(path: Path) -> FileIndex:
    """Read, hash and index one file with `ast`; unreadable/unparsable files get an error."""
    data = read_source(path)
    if isinstance(data, Finding):
        return FileIndex(path, "", error=data)
    digest = file_digest(data)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(data, filename=str(path))
        source = _decode(data, "utf-8")
        return FileIndex(path, digest, info=run_deep(build_module_info, path, tree, source),
                         left_out=left_out_cells(path) if is_notebook(path) else [])
    except SyntaxError as err:
        message = f"cannot parse: {err.msg}".splitlines()[0]
        return FileIndex(path, digest, error=_error(path, err.lineno or 1, err.offset or 1, message))
    except (ValueError, UnicodeDecodeError, LookupError) as exc:
        return FileIndex(path, digest, error=_error(path, 1, 1, f"cannot decode or parse: {exc}".splitlines()[0]))
    except (RecursionError, MemoryError):
        return FileIndex(path, digest, error=_error(path, 1, 1, "cannot parse: expressions nested too deeply"))
    except Exception as exc:  # breakscan's own bug while indexing: this file only
        return FileIndex(path, digest, error=_error(
            path, 1, 1, _one_line(f"internal error while indexing: {type(exc).__name__}: {exc}"),
            INTERNAL_ERROR_RULE))


# phase B ---------------------------------------------------------------------------------------
def check_file(path: Path, regions: list[Region], index: ProjectIndex, rules: RuleIndex,
               verbose: bool = False, settings: dict | None = None, callers=None,
               share: bool = False, roots: Collection[str] | None = None) -> list[Finding]:
    """Parse `path` with libcst and check its region functions. Never raises.

    `settings` maps a region's key to its DynamoSettings (default: Dynamo's defaults); `callers`
    (checks.call_sites.ProjectCallers) the project's traced call sites, for parameter inference;
    `share`: other files' call-site inference reads `path` (affinity_groups), so its tree is
    kept for caller_visitor (see _SHARED). `roots`: the qualified names of the project's
    compiled module-level functions, to parse the file with the defs no check reads elided
    (breakscan.static.elide), or to take the tree caller_visitor parsed so in this process;
    None parses it whole."""
    # a tree another file's call-site inference parsed in this worker (caller_visitor) serves too
    item = _shared_tree(path) if roots is not None else None
    if item is None:
        # only files phase A's ast.parse accepted get here
        item = parse_file(path, cpython_checked=True, regions=regions if roots is not None else None,
                          roots=roots or ())
        if share and isinstance(item, _Parsed):
            _share(item)
    if isinstance(item, Finding):
        return [item]
    try:
        findings = run_deep(_check_module, item, regions, index, rules, verbose, settings or {}, callers)
    except (RecursionError, Exception) as exc:  # a bug in breakscan must not lose the rest
        detail = traceback.format_exc() if verbose else f"{type(exc).__name__}: {exc}"
        return [_error(path, 1, 1, f"internal error while checking: {detail}", INTERNAL_ERROR_RULE)]
    if any(f.rule_id in rules.fixable for f in findings):
        _remember(item)
    return findings


def _region_nodes(module: cst.Module, regions: list[Region]) -> tuple[dict, list[tuple[Region, cst.FunctionDef]]]:
    """(syntax.indexed_functions of `module`, its region functions' libcst nodes with their Region)."""
    from breakscan.static.syntax import indexed_functions, nested_function

    functions = indexed_functions(module)
    pairs: list[tuple[Region, cst.FunctionDef]] = []
    for region in regions:
        node = functions.get((region.function.qualname, region.function.occurrence))
        if node is None and "." in region.function.qualname:
            node = nested_function(functions, region.function.qualname, region.function.occurrence)
        if node is not None:
            pairs.append((region, node))
    return functions, pairs


def _importer_inputs(regions: list[Region], index: ProjectIndex, digests: dict[str, str]) -> list:
    """What root_call_kinds reads of the modules importing a file's module: the calls they make of
    its compiled module-level functions, so their digests when it has such a root (their names
    otherwise: a module that gains an importer may be read differently)."""
    importers = sorted(index.importers(regions[0].module.name))
    if not any(len(r.chain) <= 1 and r.cls is None and "." not in r.function.qualname for r in regions):
        return importers
    return [(name, digests.get(str(index.modules[name].path), "")) for name in importers if name in index.modules]


def _region_visitor(module: cst.Module, source: str, regions: list[Region], index: ProjectIndex,
                    rules: RuleIndex, callers=None, info: ModuleInfo | None = None):
    """(a RegionVisitor over `module`'s region functions, those functions' (Region, node) pairs);
    `info`: the module's index entry, needed only when `regions` is empty."""
    from breakscan.static.checks import RegionVisitor

    functions, pairs = _region_nodes(module, regions)
    visitor = RegionVisitor(regions[0].module if regions else info, index,
                            {id(node): region for region, node in pairs}, rules, functions, source, callers)
    visitor.module_tree = module  # the calls of its compiled functions (CallSiteInference.root_call_kinds)
    return visitor, pairs


def caller_visitor(path: str, regions: list[Region], index: ProjectIndex, rules: RuleIndex,
                   roots: Collection[str] | None = None):
    """A RegionVisitor of another file holding traced calls (`regions`: its region functions), or
    calls of a compiled function it imports (a file without regions, `train.py`), for the
    call-site inference of the file being checked; None if it cannot be read or parsed, or is not
    indexed. `roots` (engine.compiled_roots), when given: the file is parsed with the defs no
    check reads elided, as its own check parses it (breakscan.static.elide). Runs inside run_deep
    already, so it parses with libcst directly (parse_file would call run_deep again and wait on
    its non-reentrant lock)."""
    import libcst as cst

    info = regions[0].module if regions else index.module_at(path)
    if info is None:
        return None
    kept = _shared_tree(Path(path))
    if kept is None:
        data = read_source(Path(path))
        if isinstance(data, Finding):
            return None
        kept = _parse_elided(Path(path), data, regions, roots, deep=False) if roots is not None else None
        if kept is None:
            try:
                module = parse_unvalidated(data)
            except Exception:  # the file's own check reports it
                return None
            kept = _Parsed(Path(path), _decode(data, module.encoding), module, data)
        _share(kept)
    visitor = _region_visitor(kept.module, kept.source, regions, index, rules, info=info)[0]
    visitor.parsed = kept  # in _ALIVE while ProjectCallers keeps the visitor
    return visitor


# The trees of files other files' call-site inference reads (their callers, the callees whose
# returns it reads), shared by the uses a worker makes of such a file: its own check, and the
# inference of the files linked to it, which affinity_groups sends to the same worker. The
# SHARED_KEPT most recently used are held here; any other still alive (a caller's visitor that
# ProjectCallers keeps holds its tree) is found through _ALIVE. One libcst parse where there were
# two or three: 1,138 -> 982 parses on the transformers tree with 2 workers, about 5 CPU s.
# Valid while the file's bytes match.
SHARED_KEPT = 16
_SHARED: dict[Path, _Parsed] = {}
_ALIVE: weakref.WeakValueDictionary[Path, _Parsed] = weakref.WeakValueDictionary()


def _shared_tree(path: Path) -> _Parsed | None:
    kept = _SHARED.pop(path, None) or _ALIVE.get(path)
    if kept is None:
        return None
    data = read_source(path)
    if not isinstance(data, bytes) or data != kept.data:
        return None
    _share(kept)
    return kept


def _share(parsed: _Parsed) -> None:
    _SHARED.pop(parsed.path, None)
    _SHARED[parsed.path] = parsed
    _ALIVE[parsed.path] = parsed
    while len(_SHARED) > SHARED_KEPT:
        del _SHARED[next(iter(_SHARED))]


def _check_module(item: _Parsed, regions: list[Region], index: ProjectIndex, rules: RuleIndex,
                  verbose: bool = False, settings: dict | None = None, callers=None) -> list[Finding]:
    from breakscan.static.positions import Locator

    if not regions:
        return []
    visitor, pairs = _region_visitor(item.module, item.source, regions, index, rules, callers)
    if not pairs:
        return []
    info = regions[0].module
    for region, node in pairs:
        # `dynamic=True` makes sizes and integer inputs symbolic (checks.call_sites.symbolic_random_call)
        visitor.dynamic_shapes = (settings or {}).get(region.key, _DEFAULT_SETTINGS).dynamic
        visitor.check_function(region, node)
    errors = _check_errors(item, visitor.errors, lambda e: e.root[1], rules, verbose)
    if not visitor.hits:
        return errors
    locator = Locator(item.module, item.source)
    spans = locator.spans([(h.node, h.function, h.extent or _extent(h.region)) for h in visitor.hits])
    guarded = [h for h in visitor.hits if h.guard is not None]
    guard_spans = ({id(h): span for h, span in zip(guarded, locator.spans(
        [(h.guard, h.function, h.extent or _extent(h.region)) for h in guarded]))} if guarded else {})
    lines = source_lines(item.source)
    findings: list[Finding] = []
    seen: set[tuple[str, int]] = set()
    for hit, span in zip(visitor.hits, spans):
        key = (hit.rule.id, span.line)  # one finding per rule and line: a line breaks once
        if key in seen:
            continue
        dynamo = (settings or {}).get(hit.region.key, _DEFAULT_SETTINGS)
        if hit.rule.silenced_by and silenced(hit.rule.silenced_by, dynamo, callee_names(info, hit.node),
                                             plain_arguments(hit.node)):
            continue  # a Dynamo setting in effect for this region captures the pattern
        seen.add(key)
        # Kept, marked: merge pairs it with Dynamo's break on that line, then both are dropped.
        suppressed = is_suppressed(hit.rule.id, lines, span.line, span.end_line, hit.rule.gb_ids)
        code = item.module.code_for_node(hit.node).strip()
        short = code if len(code) <= 60 and "\n" not in code else code.splitlines()[0][:57] + "..."
        message, severity = hit.rule.message.replace("{code}", short), hit.rule.severity
        extra: dict = {SUPPRESSED: True} if suppressed else {}
        if hit.region.under and hit.rule.kind is Kind.GRAPH_BREAK:
            message += HIGHER_ORDER_NOTE.format(op=hit.region.under.rsplit(".", 1)[-1])
            severity = Severity.ERROR
            extra["higher_order_op"] = hit.region.under
        elif dynamo.fullgraph and hit.rule.kind is Kind.GRAPH_BREAK:
            message += FULLGRAPH_NOTE
            severity = Severity.ERROR
        guard = guard_spans.get(id(hit))
        if guard is not None and guard.line <= span.line <= guard.end_line:
            # Behind a test on its own line: Dynamo tracing that line does not show that it ran.
            extra["guard_lines"] = list(range(guard.line, guard.end_line + 1))
        if hit.in_handler:
            extra["except_handler"] = True  # runs only when the `try` body raises: skips no frame
        findings.append(Finding(
            rule_id=hit.rule.id, kind=hit.rule.kind, path=str(item.path), line=span.line,
            column=span.column, end_line=span.end_line, end_column=span.end_column,
            message=message, severity=severity,
            status=Status.PREDICTED, fix=hit.rule.fix, gb_ids=hit.rule.gb_ids,
            chain=hit.region.chain, code=short, extra=extra,
        ))
    return errors + findings


_DEFAULT_SETTINGS = DynamoSettings()
FULLGRAPH_NOTE = ("; the region is compiled with fullgraph=True, so this graph break is an error: "
                  "Dynamo raises torch._dynamo.exc.Unsupported instead of splitting the graph")


HIGHER_ORDER_NOTE = ("; this runs inside a `torch.{op}` branch or body, which Dynamo must capture whole, so it "
                     "is an error, not a graph break: the compiled call raises UncapturedHigherOrderOpError "
                     "(torch 2.13)")


def _extent(region: Region) -> tuple[int, int, int] | None:
    """(first line, last line, indent) of a region function, from the ast index."""
    fn = region.function
    return (fn.line, fn.end_line, fn.indent) if fn.end_line else None


def _check_errors(item: _Parsed, errors: list, function_of: Callable, rules: RuleIndex,
                  verbose: bool) -> list[Finding]:
    """BRK900 findings for RegionVisitor methods that raised: one per method and file, at the
    first node that failed, naming the method and the rules it may have missed. Never raises."""
    from breakscan.static.checks import rules_at_risk
    from breakscan.static.positions import Locator

    first: dict[str, tuple] = {}
    counts: dict[str, int] = {}
    for err in errors:
        first.setdefault(err.method, err)
        counts[err.method] = counts.get(err.method, 0) + 1
    try:
        spans = Locator(item.module, item.source).spans([(e.node, function_of(e), None) for e in first.values()])
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




# orchestration ---------------------------------------------------------------------------------
_STATE: dict = {}  # phase B inputs, inherited by forked workers (or sent once to spawned ones)


def _init_worker(state: dict) -> None:
    _ignore_sigint()
    gc.set_threshold(*POOL_GC_THRESHOLDS)
    _STATE.update(state)


def _ignore_sigint() -> None:
    """Workers leave Ctrl-C to the parent (which ends them): no KeyboardInterrupt tracebacks from each.

    A forked worker starts with SIGINT blocked (`_map`), so one sent before this ran is dropped here.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _check_one(path: Path) -> tuple[Path, list[Finding]]:
    if "project_callers" not in _STATE:  # one per worker: it keeps the caller files it parsed
        from breakscan.static.checks.call_sites import ProjectCallers

        by_file, index, rules = _STATE["regions"], _STATE["index"], _STATE["rules"]
        roots = _STATE["roots"] = compiled_roots(by_file)
        _STATE["project_callers"] = ProjectCallers(
            _STATE["callers"], lambda p: caller_visitor(p, by_file.get(p, []), index, rules, roots),
            member_params=_STATE.get("member_params"))
    return path, check_file(path, _STATE["regions"][str(path)], _STATE["index"], _STATE["rules"],
                            _STATE["verbose"], _STATE["settings"], _STATE["project_callers"],
                            share=str(path) in _STATE["read_files"], roots=_STATE["roots"])


def affinity_groups(paths: list[Path], callers: dict, calls_into: dict[str, set[str]],
                    limit: int) -> tuple[list[list[Path]], set[str]]:
    """(`paths` grouped so that files whose checks read each other's trees mostly share a group,
    each group at most `limit` files, in the order of their first members; the files other
    files' checks may read).

    A file's call-site inference parses the files of its region functions' traced callers
    (`callers`: RegionFinder.traced_callers) and of the functions whose returns it reads
    (`calls_into`: _callee_files); a group goes to one worker whole (`_map`), so such a file is
    parsed once there instead of once per worker. Linked files are joined transitively (union-find),
    links between rarely linked files first: a file most of the project links to
    (`modeling_utils.py`) would make one group of everything, so its links are the ones dropped
    when a group is full, and each worker parses it once."""
    links = [(key[0], callee[0]) for callee, keys in callers.items() for key in keys if key[0] != callee[0]]
    links += [(a, b) for a, found in calls_into.items() for b in found]
    degree = Counter(p for link in links for p in link)
    todo = {str(p) for p in paths}
    parent: dict[str, str] = {}
    size: dict[str, int] = {}

    def root(x: str) -> str:
        if x not in parent:
            parent[x] = x
            size[x] = int(x in todo)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in sorted(links, key=lambda link: max(degree[link[0]], degree[link[1]])):
        ra, rb = root(a), root(b)
        if ra != rb and size[ra] + size[rb] <= limit:
            parent[ra] = rb
            size[rb] += size[ra]
    groups: dict[str, list[Path]] = {}
    for path in paths:
        groups.setdefault(root(str(path)), []).append(path)
    return list(groups.values()), set(degree)


def compiled_roots(by_file: dict[str, list[Region]]) -> frozenset[str]:
    """Qualified names of the module-level functions that are region roots (compiled): the
    modules importing one are read whole (breakscan.static.elide)."""
    return frozenset(f"{r.module.name}.{r.function.qualname}" for found in by_file.values() for r in found
                     if len(r.chain) <= 1 and r.cls is None and "." not in r.function.qualname)


def _pool(jobs: int, state: dict) -> ProcessPoolExecutor:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    if context.get_start_method() == "fork":
        _STATE.clear()
        _STATE.update(state)
        return ProcessPoolExecutor(jobs, mp_context=context, initializer=_ignore_sigint)
    return ProcessPoolExecutor(jobs, mp_context=context, initializer=_init_worker, initargs=(state,))


def default_jobs() -> int:
    """One worker per CPU the process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover (macOS, Windows)
        return max(1, os.cpu_count() or 1)


def _map(fn: Callable, items: list, jobs: int, state: dict | None = None,
         progress: Callable[[int], None] | None = None, groups: list[list] | None = None) -> list:
    """`fn` over `items` (in order: results come back in the order of the items), in `jobs`
    worker processes when there are enough items. `groups`: `items` partitioned into groups that
    each go to one worker whole (files that read each other's trees, `affinity_groups`); default:
    every item a group of its own."""
    if groups is not None:
        items = [item for group in groups for item in group]
    if jobs <= 1 or len(items) < PARALLEL_MIN_FILES:
        if state is not None:
            _STATE.clear()
            _STATE.update(state)
        out = []
        for item in items:
            out.append(fn(item))
            if progress:
                progress(1)
        return out
    chunk = _chunk_size(len(items), jobs)
    thresholds = gc.get_threshold()
    gc.freeze()  # forked workers inherit the parent's objects: no collection of theirs walks them
    gc.set_threshold(*POOL_GC_THRESHOLDS)
    pool = _pool(jobs, state or {})
    try:
        # Chunks submitted one by one, not pool.map(): map's iterator cancels the queued futures
        # when a Ctrl-C leaves it, and the pool's manager thread then fails setting those same
        # futures broken (InvalidStateError in its thread on 3.11; _stop_pool).
        with _sigint_blocked():  # workers fork in the first submit(): none may take a Ctrl-C before it ignores it
            futures = [pool.submit(_run_chunk, fn, part) for part in _chunks(groups or [[i] for i in items], chunk)]
        out = []
        for future in futures:
            for result in future.result():
                out.append(result)
                if progress:
                    progress(1)
        pool.shutdown()
        return out
    except BaseException:  # Ctrl-C (or a worker's error): stop now, not after the queued files
        _stop_pool(pool)
        raise
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


def _chunk_size(items: int, jobs: int) -> int:
    """Items a worker takes at a time: about 8 chunks per worker, at most 64 items."""
    return max(1, min(64, items // (max(1, jobs) * 8)))


def _chunks(groups: list[list], size: int) -> Iterator[list]:
    """Consecutive groups joined into chunks of at least `size` items (the last may be smaller);
    a group is never split."""
    part: list = []
    for group in groups:
        part.extend(group)
        if len(part) >= size:
            yield part
            part = []
    if part:
        yield part


def _run_chunk(fn: Callable, chunk: list) -> list:
    """`fn` over one chunk of items, in a pool worker."""
    return [fn(item) for item in chunk]


@contextmanager
def _sigint_blocked() -> Iterator[None]:
    """SIGINT held back in this thread (and in processes forked meanwhile); delivered after."""
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover (Windows)
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _stop_pool(pool: ProcessPoolExecutor) -> None:
    """Drop the pool's queued work and end its workers at once (they ignore SIGINT)."""
    for proc in list((getattr(pool, "_processes", None) or {}).values()):  # no public handle before 3.14
        if proc.is_alive():
            proc.kill()
    # A worker killed while writing its result leaves the pool's manager thread reading the rest
    # of that message forever: the pipe's write end is still open here, so it never sees EOF, and
    # the shutdown below would wait for it (a hang measured on 3.11, ~2% of Ctrl-Cs in phase A).
    # With every writer gone, closing ours ends that read with EOFError: the pool counts as broken.
    results = getattr(pool, "_result_queue", None)
    writer = getattr(results, "_writer", None)
    if writer is not None:
        for proc in list((getattr(pool, "_processes", None) or {}).values()):
            proc.join(timeout=5.0)  # SIGKILL is not instant: its end of the pipe closes when it has died
        writer.close()
    # The pool sees its workers gone and its manager thread ends, failing the queued work; joining
    # it here keeps the thread from racing the interpreter's exit hook (an "Exception ignored" on
    # stderr). Nothing is cancelled here or in _map: cancelling races the manager thread failing
    # the same futures (InvalidStateError in its thread on 3.11, measured).
    try:
        pool.shutdown(wait=True)
    except RuntimeError:  # interrupted while the pool was starting its manager thread
        pool.shutdown(wait=False, cancel_futures=True)


def scan_files(files: Iterable[Path], rules: list[Rule], *, regions_mode: str = "modules",
               verbose: bool = False, jobs: int = 1, cache=None,
               progress: Callable[[int], None] | None = None,
               dynamo_config: dict | None = None, region_pass: RegionPassFn | None = None,
               report_paths: Collection[str] | None = None) -> StaticResult:
    """Scan `files` (absolute paths) with `rules` (already filtered by version and selection).

    `dynamo_config` is the checked `[tool.breakscan] dynamo-config` table (Dynamo settings applied
    outside the scanned code); with the settings the code and the environment set, it decides per
    region which findings Dynamo would not break on (breakscan.static.dynamo_settings).

    `jobs` worker processes (1: in-process); `cache` a breakscan.static.cache.Cache or None;
    `progress(n)` is called as files finish (phase B). `region_pass` computes the compile regions
    and their settings from the project index (default: region_pass.compute_regions, whole; the
    language server passes an IncrementalRegions). `report_paths`: when given, the cross-file
    skipped-frames pass (BRK406/BRK407, and the predictions it drops) works only in these files
    (str paths; the language server's open documents); the other findings are the same. Returns findings with status
    `predicted` (those a suppression comment covers apart, in `suppressed`); unparsable files give BRK901 error findings and never stop the scan; an
    internal error while checking one file gives a BRK900 finding for that file.
    """
    result = StaticResult(files=list(files))
    indexed = _phase_a(result.files, jobs, cache)
    index = ProjectIndex()
    for entry in indexed:
        if entry.error is not None:
            result.findings.append(entry.error)
        elif entry.info is not None:
            index.add(entry.info)
            result.findings.extend(entry.left_out)
    found = (region_pass or compute_regions)(index, regions_mode, dynamo_config)
    finder, regions, settings = found.finder, found.regions, found.settings
    result.regions = len(regions)
    by_file: dict[str, list[Region]] = {}
    for region in regions.values():
        by_file.setdefault(str(region.module.path), []).append(region)
    digests = {str(e.path): e.digest for e in indexed}
    todo: list[Path] = []
    keys: dict[str, str] = {}
    callers = finder.traced_callers()
    member_params = {key: frozenset(params) for key, params in finder.member_params.items()}
    calls_into = _callee_files(finder.callers, finder.name_called_methods)
    for path_text, file_regions in by_file.items():
        key = cache.check_key(digests.get(path_text, ""), file_regions, index, rules,
                              extra=(sorted((r.key, settings[r.key], sorted(member_params.get(r.key, ())))
                                            for r in file_regions),
                                     _importer_inputs(file_regions, index, digests),
                                     _caller_inputs(file_regions, callers, regions, digests),
                                     _callee_inputs(path_text, file_regions, callers, calls_into, digests))
                              ) if cache else ""
        hit = cache.get_findings(path_text, key) if cache else None
        if hit is not None:
            result.findings.extend(hit)
            result.cache_hits += 1
        else:
            todo.append(Path(path_text))
            keys[path_text] = key
    if todo:
        from breakscan.static.checks import RuleIndex

        groups, read_files = affinity_groups(todo, callers, calls_into, _chunk_size(len(todo), jobs))
        state = {"regions": by_file, "index": index, "rules": RuleIndex(rules), "verbose": verbose,
                 "settings": settings, "callers": callers, "member_params": member_params,
                 "read_files": read_files}
    for path, findings in (_map(_check_one, todo, jobs, state, progress, groups) if todo else ()):
        result.findings.extend(findings)
        if cache:
            if not any(f.rule_id == INTERNAL_ERROR_RULE for f in findings):
                # An internal error is breakscan's bug: retried on the next run, and `--verbose`
                # then shows its traceback instead of a cached one-line message.
                cache.put_findings(str(path), keys[str(path)], findings)
    _SHARED.clear()  # in-process checks (a language server runs for hours): keep no tree
    _ALIVE.clear()
    if cache:
        cache.save()
    result.suppressed = [f for f in result.findings if f.extra.get(SUPPRESSED)]
    result.findings = [f for f in result.findings if not f.extra.get(SUPPRESSED)]
    # Cross-file, after every file's checks (so never cached per file): frames Dynamo skips after
    # a break it cannot resume from run eagerly; drop their later predictions, flag what they start.
    skip_rules = [r for r in rules if r.match.get("check") in frames.CHECKS]
    result.findings, started = frames.SkippedFrames(finder, result.findings, settings).apply(
        result.findings, skip_rules, report_paths)
    for f in started:
        (result.suppressed if f.extra.get(SUPPRESSED) else result.findings).append(f)
    result.findings.sort(key=Finding.sort_key)
    result.suppressed.sort(key=Finding.sort_key)
    return result


def _caller_inputs(file_regions: list[Region], callers: dict, regions: dict, digests: dict) -> list:
    """What other files give a file's parameter inference (part of its cache key): for each of its
    region functions with traced callers elsewhere, those callers, their chains and their files'
    content digests."""
    out = []
    for region in file_regions:
        if _is_root(region):
            continue  # its parameters are not inferred from call sites in other files
        found = callers.get(region.key, ())
        others = [(c, regions[c].chain, digests.get(c[0], "")) for c in found if c[0] != region.key[0]]
        # A caller's own parameters come from its callers, PARAM_READ_DEPTH files further.
        level, seen = [c for c in found if c[0] != region.key[0]], set(found)
        for _ in range(PARAM_READ_DEPTH):
            level = [c for f in level if not _is_root(regions[f]) for c in callers.get(f, ()) if c not in seen]
            seen.update(level)
            others += [(c, regions[c].chain, digests.get(c[0], "")) for c in level]
        if others:
            out.append((region.key, sorted(others)))
    return sorted(out)


def _is_root(region: Region) -> bool:
    """A region's root (a compiled function or a `forward`): call_sites does not infer its
    parameters from its callers."""
    return len(region.chain) <= 1 or region.function.name == "forward"


def _callee_files(region_callers: dict, name_called_methods: set) -> dict[str, set[str]]:
    """For each file, the other files whose module-level region functions its region functions
    call (RegionFinder.callers: callee -> its callers), and whose methods they call by name
    (RegionFinder.name_called_methods: `meter.compute()` on a local instance): the functions whose
    bodies call_sites reads with a call's arguments (`_project_function`, `_instance_method`);
    other methods (`self.sub.m()`) are not read across files."""
    out: dict[str, set[str]] = {}
    for callee, found in region_callers.items():
        if "." in callee[1] and callee not in name_called_methods:
            continue
        for caller in found:
            if caller[0] != callee[0]:
                out.setdefault(caller[0], set()).add(callee[0])
    return out


def _callee_inputs(path: str, file_regions: list[Region], callers: dict, calls_into: dict[str, set[str]],
                   digests: dict) -> list:
    """What other files give a file's return inference (part of its cache key): the content
    digests of the files its region functions call into, and those its callers' files call into,
    as deep as call_sites reads a callee's body with a call's arguments (
    regions.RETURN_READ_DEPTH files)."""
    start = {path} | {c[0] for r in file_regions if not _is_root(r) for c in callers.get(r.key, ())}
    seen = set(start)
    frontier = set(start)
    for _ in range(RETURN_READ_DEPTH):
        frontier = {b for a in frontier for b in calls_into.get(a, ())} - seen
        if not frontier:
            break
        seen |= frontier
    return sorted((p, digests.get(p, "")) for p in seen - {path})


def _phase_a(files: list[Path], jobs: int, cache) -> list[FileIndex]:
    if cache is None:
        return _map(index_file, files, jobs)
    out: list[FileIndex | None] = []
    missing: list[tuple[int, Path]] = []
    for i, path in enumerate(files):
        entry = cache.get_index(path)
        out.append(entry)
        if entry is None:
            missing.append((i, path))
    for (i, _), entry in zip(missing, _map(index_file, [p for _, p in missing], jobs)):
        out[i] = entry
        cache.put_index(entry)
    return [e for e in out if e is not None]
