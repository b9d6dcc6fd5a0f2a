"""The child side of the dynamic pass: import the user's file, compile its examples, log what Dynamo did.

Run by `runner` (`runner.probe_command`: `main(REQUEST.json, RESULT.jsonl)`, imported from the
parent's own breakscan); never imported by the parent (it imports torch). Two modes:

- examples (default): the request holds `targets` (a list of `{index, target, entry}`; `entry`
  is the name of the target file's examples function, or null for `breakscan_examples`),
  `device` (`auto|cpu|cuda`), `backend`, `project_root`. A target inside a package is imported
  as its dotted module (`import_target`). Targets run
  one after another in this one process (Dynamo set-up is paid once), `torch._dynamo.reset()`
  between them; each is framed by `target_start` / `done` records carrying its `index`, so
  the parent can tell which targets finished if this process dies, and re-run the rest.
  (A request with a single `target` / `entry` is still accepted.)
- run (`mode: "run"`): run a user's program unchanged (`script` or `module`, with `argv`) via
  runpy, with the capture (`install_capture`) installed before user code runs; stdio is the
  parent's; the process exits with the program's exit code.

The result is JSON lines, one record per line, flushed as they happen so that a crash keeps
everything before it. Record `type`s: `start` (torch version, device), `target_start`,
`entry_start`, `break` (a parsed graph-break
message), `fallback` (`compilation_metrics` with a `fail_type`), `compiled` (run mode: one
frame's graph op count), `recompile`, `recompile_limit`, `error` (user code raised: rule
BRK902, or exited: BRK903), `entry_end` (calls, graphs, ops per graph, break order, fullgraph
check, seconds, traced lines), `done` (end of a target; in run mode with `exit_code`),
`interrupted` (examples mode: SIGINT stopped the child; it exits 130 right after).

Signals: the parent forwards a user's Ctrl-C as SIGINT. In examples mode the probe stops at
once (KeyboardInterrupt, and a flag checked at every example, so user code that swallows the
KeyboardInterrupt does not keep it going). In run mode the program gets KeyboardInterrupt as
under a terminal; uncaught, it exits 130 (what a shell shows for Python ended by Ctrl-C).
SIGTERM dumps the stack (faulthandler), then terminates as by default.

Sources (torch 2.13, shared/DYNAMO-NOTES.md): one handler on logger `torch._dynamo`, which
receives the artifact loggers `...__graph_breaks`, `...__recompiles`, `...__trace_source`
(enabled with `torch._logging.set_logs`), the recompile-limit WARNING of
`torch._dynamo.convert_frame` and its `WON'T CONVERT` INFO (an exception escaped a frame's
compile; written as a `break` record with `fallback` and `escaped`; a `recompile` record
carries `stack_args`, see `resume_stack_args`); and a handler on the structured trace logger
`torch.__trace`
for `compilation_metrics` (frames that fell back to eager entirely).

Graphs and ops per graph come from the oracle itself: its backend is wrapped to record each
graph it is handed (in compile order, interleaved with the break records), so no second trace
(`torch._dynamo.explain`) is needed; the `fullgraph=True` check runs only for entries that
broke (an entry with no break and no fallback is captured whole by definition).
"""

from __future__ import annotations

import copy
import faulthandler
import functools
import importlib
import importlib.util
import inspect
import json
import logging
import os
import runpy
import signal
import sys
import sysconfig
import time
import types
import traceback
from pathlib import Path
from typing import Any, Callable, Iterable

from breakscan.dynamic import parse
from breakscan.dynamic.entries import DEFAULT_FUNCTION, package_module

BREAKSCAN_DIR = str(Path(__file__).resolve().parent.parent)


class ResultWriter:
    """Appends one JSON object per line to the result file and flushes each (crash-safe)."""

    def __init__(self, path: str) -> None:
        self._f = open(path, "a", encoding="utf-8")  # noqa: SIM115 - lives for the process

    def write(self, record: dict[str, Any]) -> None:
        """Write `record` as one line; non-JSON values become their repr."""
        self._f.write(json.dumps(record, default=repr) + "\n")
        self._f.flush()


class Collector(logging.Handler):
    """Turns Dynamo log records into result records while an entry's oracle runs."""

    def __init__(self, writer: ResultWriter, skip_dirs: tuple[str, ...]) -> None:
        super().__init__(level=logging.DEBUG)
        self.writer = writer
        self.skip_dirs = skip_dirs
        self.active = False
        self.entry = ""
        self.call = 0
        self.traced: dict[str, set[int]] = {}
        self.record_compiles = False  # run mode: one `compiled` record per frame compile
        self.on_break: Callable[[dict[str, Any]], None] | None = None  # the running entry's listener

    def begin(self, entry: str) -> None:
        """Start collecting for `entry` (records are taken only while `active`, i.e. during calls)."""
        self.entry, self.call, self.traced, self.active = entry, 0, {}, False

    def emit(self, record: logging.LogRecord) -> None:  # noqa: D102 - logging API
        if not self.active:
            return
        try:
            self._dispatch(record)
        except Exception as exc:  # a parser bug must never break the user's run
            self._write("internal", {"message": f"{type(exc).__name__}: {exc}"})

    def _write(self, kind: str, data: dict[str, Any]) -> None:
        self.writer.write({"type": kind, "entry": self.entry, "call": self.call, **data})
        if kind in ("break", "fallback") and self.on_break is not None:
            self.on_break(data)

    def _dispatch(self, record: logging.LogRecord) -> None:
        meta = getattr(record, "metadata", None)
        if isinstance(meta, dict):
            self._on_trace(meta)
            return
        name = record.name
        if name.endswith("__trace_source"):
            if _starts_with_jump(record):
                return  # CPython gives a branch's closing jump the line of the branch's last statement
            hit = traced_location(record) or parse.parse_trace_source(record.getMessage())
            if hit and not hit[0].startswith(self.skip_dirs):
                self.traced.setdefault(hit[0], set()).add(hit[1])
        elif name.endswith("__graph_breaks"):
            ev = parse.parse_graph_break(record.getMessage())
            if ev:
                self._write("break", ev)
        elif name.endswith("__recompiles") or name.endswith("__recompiles_verbose"):
            ev = parse.parse_recompile(record.getMessage())
            if ev:
                ev["stack_args"] = resume_stack_args(ev["function"])
                self._write("recompile", ev)
        elif record.levelno >= logging.INFO:
            text = record.getMessage()
            escaped = parse.parse_wont_convert(text)
            if escaped:
                # A torch or standard-library frame (an `inspect` generator expression) that ran
                # eagerly because its caller did: nothing the user compiled falls back.
                if not all(fr["path"].startswith(self.skip_dirs + STDLIB_DIRS) for fr in escaped["stack"]):
                    self._write("break", escaped)
            elif name == DDP_LOGGER and "DDPOptimizer used bucket cap" in str(record.msg):
                self._write("ddp_split", ddp_split(record))
            elif record.levelno >= logging.WARNING:
                limit = parse.parse_recompile_limit(text)
                if limit:
                    self._write("recompile_limit", limit)

    def _on_trace(self, meta: dict[str, Any]) -> None:
        cm = meta.get("compilation_metrics")
        if isinstance(cm, dict) and self.record_compiles and cm.get("graph_op_count"):
            self._write("compiled", {k: cm.get(k) for k in ("co_name", "co_filename", "co_firstlineno",
                                                            "graph_op_count", "compile_id")})
        if isinstance(cm, dict) and cm.get("fail_type"):
            keys = ("co_name", "co_filename", "co_firstlineno", "fail_type", "fail_reason",
                    "fail_user_frame_filename", "fail_user_frame_lineno", "compile_id")
            data = {k: cm.get(k) for k in keys}
            data["parsed"] = parse.parse_graph_break(
                "Graph break in user code at ?:0\nGraph Break Reason: " + str(cm.get("fail_reason") or "")
            )
            self._write("fallback", data)


DDP_LOGGER = "torch._dynamo.backends.distributed"


def ddp_split(record: logging.LogRecord) -> dict[str, Any]:
    """DDPOptimizer's `used bucket cap %s and created %d buckets` (its arguments), the compile it
    belongs to, and the Python stack at that moment (the user's call that compiles the graph)."""
    import torch._guards

    cap, buckets = (tuple(record.args) + (0, 0))[:2] if isinstance(record.args, tuple) else (0, 0)
    frames = traceback.extract_stack()
    cut = next((i for i, fs in enumerate(frames) if fs.filename == logging.__file__), len(frames))
    stack = [{"path": fs.filename, "line": fs.lineno or 0, "function": fs.name, "column": None}
             for fs in frames[:cut]]  # up to the `log.info` call (the logging module and the probe below)
    return {"bucket_cap": int(cap), "buckets": int(buckets),
            "compile_id": str(torch._guards.CompileContext.current_compile_id() or ""), "stack": stack}


def resume_stack_args(co_name: str) -> int | None:
    """How many `___stackN` arguments the resume function `co_name` takes, or None.

    Read off the code object that Dynamo's recompile logger (`get_and_maybe_log_recompilation_
    reasons`, torch 2.13) holds in its local `code`, a few frames up from this handler; the
    highest `___stackN` is the top of the stack: the result of the call that broke the graph.
    """
    if not parse.is_resume(co_name):
        return None
    frame = sys._getframe(1)
    for _ in range(16):
        if frame is None:
            return None
        code = frame.f_locals.get("code") if frame.f_code.co_name.endswith("recompilation_reasons") else None
        if getattr(code, "co_name", None) == co_name:
            names = code.co_varnames[: code.co_argcount]  # type: ignore[union-attr]
            return sum(1 for n in names if n.startswith("___stack"))
        frame = frame.f_back
    return None


_JUMPS = ("JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_ABSOLUTE", "JUMP", "NOP", "JUMP_BACKWARD_NO_INTERRUPT")


def _starts_with_jump(record: logging.LogRecord) -> bool:
    """Whether the traced line was entered through a bare jump (the line did not run)."""
    try:
        tx = record.args[0].func.__self__  # type: ignore[index, union-attr]
        return tx.current_instruction.opname in _JUMPS
    except (AttributeError, IndexError, TypeError):
        return False


def traced_location(record: logging.LogRecord) -> tuple[str, int] | None:
    """(file, line) of a `trace_source` record read off Dynamo's translator, without formatting.

    The record's argument is a LazyString of the translator's bound method; formatting it
    would look up the enclosing function's name (parsing the file) and the source line for
    every traced line. None when the record is not shaped so (the caller parses the text).
    """
    try:
        tx = record.args[0].func.__self__  # type: ignore[index, union-attr]
        return tx.f_code.co_filename, int(tx.lineno)
    except (AttributeError, IndexError, TypeError, ValueError):
        return None


def user_frames(tb: Any) -> list[dict[str, Any]]:
    """Frames of a traceback outside torch and breakscan, outermost first (1-based columns)."""
    frames = []
    for fs in traceback.extract_tb(tb):
        if fs.filename.startswith(SKIP_DIRS) or fs.filename.startswith("<frozen"):
            continue
        col = None
        if getattr(fs, "colno", None) is not None and fs.line:
            col = parse.byte_col_to_char_col(_source_line(fs.filename, fs.lineno), fs.colno)
        frames.append({"path": fs.filename, "line": fs.lineno or 0, "function": fs.name, "column": col})
    return frames


def _source_line(path: str, line: int | None) -> str:
    import linecache

    return linecache.getline(path, line or 0)


def error_record(writer: ResultWriter, entry: str, phase: str, exc: BaseException, rule: str,
                 call: int = 0) -> None:
    """Write an `error` record for user code that raised (BRK902) or exited (BRK903)."""
    writer.write(
        {
            "type": "error",
            "entry": entry,
            "call": call,
            "phase": phase,
            "rule": rule,
            "exc_type": type(exc).__name__,
            "message": str(exc),
            "traceback": user_frames(exc.__traceback__),
            "text": "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))[-8000:],
        }
    )


def import_target(path: Path) -> Any:
    """Import the user's file `path` (not as `__main__`); raises what its import raises.

    A file inside a package is imported as its dotted module with the package's parent first
    on sys.path (pytest's `prepend` mode; `entries.package_module`), so its relative imports
    work; ImportError when a module of that name from elsewhere is already imported. Any
    other file is imported by path with its directory first on sys.path.
    """
    found = package_module(path)
    if found is None:
        return import_by_path(path)
    parent, name = found
    top = name.split(".")[0]
    loaded = sys.modules.get(top)
    if loaded is not None and not _same_file(getattr(loaded, "__file__", None), parent / top / "__init__.py"):
        raise ImportError(f"{path} is module {name}, but a package {top} is already imported from "
                          f"{getattr(loaded, '__file__', None) or loaded}: rename the package or scan it on its own")
    sys.path.insert(0, str(parent))
    importlib.invalidate_caches()
    module = importlib.import_module(name)
    if not _same_file(getattr(module, "__file__", None), path):
        raise ImportError(f"{path} is module {name}, but {name} was imported from {getattr(module, '__file__', None)}")
    return module


def _same_file(a: str | None, b: Path) -> bool:
    """Whether `a` names the file `b` (False when either is missing)."""
    try:
        return a is not None and os.path.samefile(a, b)
    except OSError:
        return False


def import_by_path(path: Path) -> Any:
    """Import `path` as a module with its directory first on sys.path (not as `__main__`)."""
    sys.path.insert(0, str(path.parent))
    name = path.stem
    if not name.isidentifier() or name in sys.modules:
        name = f"_breakscan_target_{abs(hash(str(path)))}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def examples_function(request: dict[str, Any]) -> Callable[..., Any] | None:
    """The target's examples callable: its `entry` (a name, or `Class.name`) or `breakscan_examples`.

    None when the target defines no `breakscan_examples`; AttributeError when it lacks the
    named entry (the parent checked the name is bound, so this is rare: a conditional def).
    """
    module = import_target(Path(request["target"]))
    entry = request.get("entry")
    if not entry:
        return getattr(module, DEFAULT_FUNCTION, None)
    return functools.reduce(getattr, entry.split("."), module)


def call_examples(func: Callable[..., Any], device: str) -> Iterable[Any]:
    """Call the examples function, passing `device=` when it takes a `device` parameter."""
    try:
        takes_device = "device" in inspect.signature(func).parameters
    except (TypeError, ValueError):
        takes_device = False
    return func(device=device) if takes_device else func()


def normalise(item: Any) -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
    """`(fn, args)` or `(fn, args, kwargs)` as a triple; raises TypeError otherwise."""
    if not isinstance(item, (tuple, list)) or len(item) not in (2, 3):
        raise TypeError(f"breakscan examples must yield (fn, args) or (fn, args, kwargs), got {item!r:.200}")
    fn, args = item[0], item[1]
    kwargs = item[2] if len(item) == 3 else {}
    if not callable(fn):
        raise TypeError(f"example fn is not callable: {fn!r:.200}")
    args = tuple(args) if isinstance(args, (tuple, list)) else (args,)
    return fn, args, dict(kwargs or {})


def fn_location(fn: Any) -> tuple[str, int, str]:
    """(absolute path, def/class line, qualname) of a function or an nn.Module's class."""
    import torch

    target = type(fn) if isinstance(fn, torch.nn.Module) else inspect.unwrap(getattr(fn, "__func__", fn))
    name = getattr(target, "__qualname__", None) or repr(target)[:60]
    try:
        path = inspect.getsourcefile(target) or ""
        code = getattr(target, "__code__", None)
        line = code.co_firstlineno if code else inspect.getsourcelines(target)[1]
        return os.path.abspath(path), parse.def_line(path, line), name
    except (TypeError, OSError):
        return "", 0, name


def entry_name(path: str, qualname: str, root: str, seen: dict[str, int]) -> str:
    """`relpath:qualname`, with `#2`, `#3` for repeats."""
    try:
        rel = Path(path).resolve().relative_to(Path(root).resolve()).as_posix() if path else "?"
    except ValueError:
        rel = path
    name = f"{rel}:{qualname}"
    seen[name] = seen.get(name, 0) + 1
    return name if seen[name] == 1 else f"{name}#{seen[name]}"


def run_fullgraph(torch: Any, fn: Any, args: tuple, kwargs: dict, backend: str) -> tuple[bool, str]:
    """(ok, first break) from a `fullgraph=True` compile of one example."""
    torch._dynamo.reset()
    try:
        torch.compile(fn, backend=backend, fullgraph=True)(*args, **kwargs)
        return True, ""
    except (Exception, SystemExit) as exc:
        return False, fullgraph_message(exc)


def graph_ops(gm: Any) -> int:
    """Operations in an FX graph: call_function, call_method and call_module nodes."""
    return sum(1 for n in gm.graph.nodes if n.op in ("call_function", "call_method", "call_module"))


def recording_backend(torch: Any, backend: str | Callable[..., Any], on_graph: Callable[[int], None]) -> Any:
    """`backend`, wrapped to report each graph's op count before compiling it.

    Falls back to the plain backend name when it cannot be looked up (graphs then go
    unrecorded: the entry reports 0 graphs rather than failing).
    """
    try:
        inner = torch._dynamo.lookup_backend(backend)
    except Exception:
        return backend

    def record_then_compile(gm: Any, example_inputs: Any) -> Any:
        try:
            on_graph(graph_ops(gm))
        except Exception:
            pass
        return inner(gm, example_inputs)

    return record_then_compile


# Breaks that `fullgraph=True` may capture (it turns on scalar and dynamic-output-shape
# capture): `.item()`, data-dependent output shapes, data-dependent operators, `.tolist()`.
# Any other first break stops a fullgraph compile at the same place.
FULLGRAPH_CAPTURES = frozenset({"GB0124", "GB0036", "GB0033", "GB0109"})


def fullgraph_text(kind: str, brk: dict[str, Any]) -> str:
    """`kind: gb_type (GBnnnn) at file:line`, the shape of `fullgraph_message`."""
    ident = f" ({brk['gb_id']})" if brk.get("gb_id") else ""
    where = f" at {brk['path']}:{brk['line']}" if brk.get("path") else ""
    return f"{kind}: {brk.get('gb_type') or 'graph break'}{ident}{where}"


def fullgraph_message(exc: BaseException) -> str:
    """`gb_type (GBnnnn) at file:line`, from `Unsupported.gb_type` and its innermost user frame."""
    gb_type = getattr(exc, "gb_type", "") or (str(exc).splitlines() or [type(exc).__name__])[0]
    gb_id = parse.gb_id_from_text(str(exc))
    where = ""
    frame = getattr(exc, "innermost_user_frame_summary", None)
    if frame is not None:
        where = f" at {frame.filename}:{frame.lineno}"
    ident = f" ({gb_id})" if gb_id else ""
    return f"{type(exc).__name__}: {gb_type}{ident}{where}"


def break_summary(record: dict[str, Any]) -> dict[str, Any]:
    """`{gb_type, gb_id, path, line}` of a `break` record, or of a `fallback` record (a frame
    Dynamo gave up on: `compilation_metrics` names the failing user frame, its `parsed` reason
    the type and id; marked `fallback`)."""
    if "fail_type" not in record:
        return {k: record.get(k) for k in ("gb_type", "gb_id", "path", "line")}
    parsed = record.get("parsed") or {}
    return {
        "gb_type": parsed.get("gb_type") or str(record.get("fail_type") or ""),
        "gb_id": parsed.get("gb_id") or "",
        "path": record.get("fail_user_frame_filename") or record.get("co_filename") or "",
        "line": record.get("fail_user_frame_lineno") or record.get("co_firstlineno") or 0,
        "fallback": True,
    }


def call_site(examples: Any, func: Callable[..., Any]) -> tuple[str, int]:
    """(path, line) in the user's examples code that made the current call: the `yield` a
    generator is suspended at, else the examples function's first line (a returned list)."""
    frame = getattr(examples, "gi_frame", None)
    if frame is not None:
        return os.path.abspath(frame.f_code.co_filename), int(frame.f_lineno)
    code = getattr(inspect.unwrap(func), "__code__", None)
    return (os.path.abspath(code.co_filename), int(code.co_firstlineno)) if code else ("", 0)


class EntryRun:
    """One entry in progress: a compiled fn and the calls made so far (calls run as yielded)."""

    def __init__(self, torch: Any, fn: Any, name: str, loc: tuple[str, int], backend: str,
                 fullgraph_rerun: bool = True) -> None:
        self.torch, self.fn, self.name, self.loc, self.backend = torch, fn, name, loc, backend
        # False: never call `fn` again for the fullgraph check (`%%breakscan` runs a cell once)
        self.fullgraph_rerun = fullgraph_rerun
        self.first: tuple[tuple, dict] | None = None
        self.calls = 0
        self.raised = False
        self.graphs: list[int] = []  # op count of each graph compiled during the first call
        self.order: list[dict[str, Any]] = []  # first call's graphs and breaks, in order
        self.broke = False
        self.t0 = time.perf_counter()
        torch._dynamo.reset()
        self.compiled = torch.compile(_uncompiled(fn), backend=recording_backend(torch, backend, self._on_graph))
        # The oracle runs in default mode to see every break; a user's fullgraph=True region
        # captures scalar outputs and dynamic-shape ops, so the oracle does too (measured on 2.13).
        self.captures = ({"capture_scalar_outputs": True, "capture_dynamic_output_shape_ops": True}
                         if user_fullgraph(fn) else {})

    def _on_graph(self, ops: int) -> None:
        if self.calls == 0:  # the first example's graphs (what explain would have shown)
            self.graphs.append(ops)
            self.order.append({"graph": len(self.graphs) - 1, "ops": ops})

    def on_break(self, record: dict[str, Any]) -> None:
        """A break or fallback record of this entry (from the collector)."""
        self.broke = True
        if self.calls == 0 and not record.get("escaped"):  # a frame that failed to compile splits no graph
            self.order.append({"break": break_summary(record)})

    def call(self, args: tuple, kwargs: dict, collector: Collector, writer: ResultWriter) -> None:
        """One default-mode call (the oracle); a raise or exit stops the entry's calls."""
        if self.raised:
            return
        self.first = self.first or (args, kwargs)
        collector.call = self.calls + 1
        collector.active = True
        try:
            with self.torch._dynamo.config.patch(**self.captures):
                self.compiled(*args, **kwargs)
            self.calls += 1
        except SystemExit as exc:
            self.raised = True
            error_record(writer, self.name, "call", exc, "BRK903", collector.call)
        except Exception as exc:  # the user's model raised
            self.raised = True
            error_record(writer, self.name, "call", exc, "BRK902", collector.call)
        finally:
            collector.active = False

    def finish(self, collector: Collector, writer: ResultWriter) -> None:
        """Explain and fullgraph check on the first example, then the `entry_end` record."""
        oracle_s = time.perf_counter() - self.t0
        fg_ok, fg_err = None, ""
        if not self.raised and self.first is not None:
            args, kwargs = self.first
            first = next((ev["break"] for ev in self.order if "break" in ev), None)
            if not self.broke:
                fg_ok = True  # no break and no fallback in default mode: captured whole
            elif first is not None and first.get("gb_id") and first["gb_id"] not in FULLGRAPH_CAPTURES:
                # fullgraph=True traces the same prefix and stops at this same break: no re-trace.
                fg_ok, fg_err = False, fullgraph_text("Unsupported", first)
            elif self.fullgraph_rerun:
                fg_ok, fg_err = run_fullgraph(self.torch, self.fn, args, kwargs, self.backend)
        ran = not self.raised and self.first is not None
        writer.write(
            {
                "type": "entry_end", "entry": self.name, "path": self.loc[0], "line": self.loc[1],
                "calls": self.calls, "graphs": len(self.graphs) if ran else 0,
                "ops_per_graph": self.graphs if ran else [], "order": self.order if ran else [],
                "explain_error": "",
                "fullgraph_ok": fg_ok, "fullgraph_error": fg_err, "oracle_seconds": oracle_s,
                "seconds": time.perf_counter() - self.t0,
                "traced": {p: sorted(s) for p, s in collector.traced.items()},
            }
        )


def run_examples(torch: Any, request: dict[str, Any], device: str, collector: Collector,
                 writer: ResultWriter) -> None:
    """Import the target, then run each example as the examples generator yields it.

    Calls run as they are yielded, so state changed between yields (`model.eval()`) is seen
    as the user wrote it. User errors become `error` records: BRK902 (raised), BRK903 (exited).
    """
    backend = request.get("backend") or "eager"
    seen: dict[str, int] = {}
    current: EntryRun | None = None
    phase = "import"
    try:
        func = examples_function(request)
        if func is None:
            writer.write({"type": "no_examples", "target": request["target"]})
            return
        phase = "examples"
        examples = iter(call_examples(func, device))
        for item in examples:
            _stop_if_interrupted()
            fn, args, kwargs = normalise(item)
            if current is None or current.fn is not fn:
                if current is not None:
                    current.finish(collector, writer)
                path, line, qualname = fn_location(fn)
                name = entry_name(path, qualname, request["project_root"], seen)
                site_path, site_line = call_site(examples, func)
                writer.write({"type": "entry_start", "entry": name, "path": path, "line": line,
                              "call_path": site_path, "call_line": site_line})
                collector.begin(name)
                current = EntryRun(torch, fn, name, (path, line), backend)
                collector.on_break = current.on_break
            current.call(args, kwargs, collector, writer)
    except SystemExit as exc:
        error_record(writer, "", phase, exc, "BRK903")
    except Exception as exc:
        error_record(writer, "", phase, exc, "BRK902")
    if current is not None:
        current.finish(collector, writer)
    collector.on_break = None


def run_targets(torch: Any, request: dict[str, Any], device: str, collector: Collector,
                writer: ResultWriter) -> None:
    """Run each target of the request in turn, framed by `target_start` / `done` records.

    Between targets: `torch._dynamo.reset()`, and the working directory, `sys.path` and
    `torch._dynamo.config` as they were (user imports may change them).
    """
    targets = request.get("targets") or [{"index": 0, "target": request["target"], "entry": request.get("entry")}]
    import warnings

    cwd, path = os.getcwd(), list(sys.path)
    settings = torch._dynamo.config.get_config_copy()  # a target's `torch._dynamo.config.X = v` is its own
    for t in targets:
        _stop_if_interrupted()
        writer.write({"type": "target_start", "index": t["index"], "target": t["target"]})
        sub = {**request, "target": t["target"], "entry": t.get("entry")}
        torch._dynamo.reset()
        run_examples(torch, sub, device, collector, writer)
        writer.write({"type": "done", "index": t["index"]})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # load_config re-sets deprecated settings too
            # a copy each time: load_config keeps the objects it is given, and a target's
            # `reorderable_logging_functions.add(print)` would otherwise change `settings` itself
            torch._dynamo.config.load_config(copy.deepcopy(settings))
        try:
            os.chdir(cwd)
        except OSError:
            pass
        sys.path[:] = path


def install_capture(torch: Any, writer: ResultWriter) -> Collector:
    """Install the Dynamo log capture into `writer`: returns the Collector (inactive until told).

    Used by both modes: examples (active during each call) and run (active throughout).
    """
    global SKIP_DIRS
    SKIP_DIRS = (os.path.dirname(torch.__file__) + os.sep, BREAKSCAN_DIR + os.sep)
    collector = Collector(writer, SKIP_DIRS)
    install_logging(torch, collector)
    return collector


def force_backend(torch: Any, backend: str) -> None:
    """Make every `torch.compile` of the program use `backend` (run mode's `--backend`)."""
    original = torch.compile

    def compile_with(*args: Any, **kwargs: Any) -> Any:
        kwargs["backend"] = backend
        if backend != "inductor":  # Inductor's `mode` / `options` mean nothing to another backend
            kwargs.pop("mode", None)
            kwargs.pop("options", None)
        return original(*args, **kwargs)

    compile_with.__wrapped__ = original  # type: ignore[attr-defined]
    torch.compile = compile_with


def run_program(torch: Any, request: dict[str, Any], collector: Collector, writer: ResultWriter) -> int:
    """Run the user's program (run mode) with the capture active; returns its exit code.

    Behaves as `python SCRIPT ARGS` / `python -m MODULE ARGS`: `sys.argv`, `sys.path[0]`,
    `__main__`. An uncaught exception prints its traceback to stderr as Python would and is
    recorded as BRK902; `sys.exit(n)` with n not 0/None is recorded as BRK903.
    """
    label = request.get("label") or "program"
    script, module = request.get("script"), request.get("module")
    argv = list(request.get("argv") or [])
    if request.get("backend"):
        force_backend(torch, request["backend"])
    writer.write({"type": "entry_start", "entry": label, "path": request.get("main_path") or script or "",
                  "line": 1})
    collector.begin(label)
    collector.record_compiles = True
    collector.active = True
    code, t0 = 0, time.perf_counter()
    try:
        if module:
            sys.argv = [module, *argv]
            sys.path[0] = os.getcwd()
            runpy.run_module(module, run_name="__main__", alter_sys=True)
        else:
            sys.argv = [script, *argv]
            sys.path[0] = str(Path(script).resolve().parent)
            runpy.run_path(script, run_name="__main__")
    except SystemExit as exc:
        code = exit_status(exc.code)
        if code:
            error_record(writer, label, "program", exc, "BRK903")
    except BaseException as exc:  # noqa: BLE001 - report, then exit 1 as Python does
        code = 130 if isinstance(exc, KeyboardInterrupt) else 1
        traceback.print_exception(type(exc), exc, _program_tb(exc.__traceback__))
        error_record(writer, label, "program", exc, "BRK902")
    finally:
        collector.active = False
    writer.write({"type": "entry_end", "entry": label, "path": request.get("main_path") or script or "",
                  "line": 1, "calls": 0, "graphs": 0, "ops_per_graph": [], "order": [],
                  "fullgraph_ok": None, "fullgraph_error": "", "seconds": time.perf_counter() - t0,
                  "traced": {p: sorted(s) for p, s in collector.traced.items()}})
    writer.write({"type": "done", "index": 0, "exit_code": code})
    return code


def _program_tb(tb: Any) -> Any:
    """`tb` without the leading frames of the probe and runpy (as `python SCRIPT` would print it)."""
    skip = (os.path.abspath(__file__), os.path.abspath(runpy.__file__))
    while tb is not None and (os.path.abspath(tb.tb_frame.f_code.co_filename) in skip
                              or tb.tb_frame.f_code.co_filename.startswith("<frozen")):
        tb = tb.tb_next
    return tb


def exit_status(code: Any) -> int:
    """The process exit status `sys.exit(code)` gives: None -> 0, int -> itself, else 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def install_logging(torch: Any, collector: Collector) -> None:
    """Enable Dynamo's break/recompile/trace_source artifacts into `collector`, not stderr."""
    torch._logging.set_logs(graph_breaks=True, recompiles=True, trace_source=True)
    # set_logs adds stderr handlers on the torch loggers; the report must stay clean.
    for name in ("torch", "torch._dynamo", "torch._inductor"):
        lg = logging.getLogger(name)
        for h in list(lg.handlers):
            lg.removeHandler(h)
    logging.getLogger("torch._dynamo").addHandler(collector)
    # `WON'T CONVERT` (an exception escaped a frame compile: the frame runs eagerly) is INFO.
    logging.getLogger("torch._dynamo.convert_frame").setLevel(logging.INFO)
    # DDPOptimizer's bucket splits (multirank): set_logs gives this logger its own stderr handler
    # and propagate=False, so the capture listens on it directly.
    ddp = logging.getLogger(DDP_LOGGER)
    for h in list(ddp.handlers):
        ddp.removeHandler(h)
    ddp.addHandler(collector)
    ddp.setLevel(logging.INFO)
    trace = logging.getLogger("torch.__trace")
    trace.addHandler(collector)
    trace.setLevel(logging.DEBUG)
    keep_nested_frames(torch)
    keep_repeated_break_stacks(torch)


def keep_repeated_break_stacks(torch: Any) -> None:
    """Log the user traceback of every graph break, not only the first of each kind and site.

    Dynamo suppresses the traceback of a break whose type and innermost location it has logged
    before (`graph_break_dup_warning_checker`, torch/_dynamo/symbolic_convert.py, 2.13 to
    2.15). For a break inside torch (`_detect_is_causal_mask`, reached from two user calls of
    `nn.TransformerEncoder`), that location is torch's, so the second user call would be logged
    with no user frame and could not be placed. The runner de-duplicates per user line itself.
    """
    convert = getattr(torch._dynamo, "symbolic_convert", None)
    checker = getattr(convert, "graph_break_dup_warning_checker", None)
    if checker is not None and callable(getattr(checker, "add", None)):
        checker.add = lambda key: True


def keep_nested_frames(torch: Any) -> None:
    """Keep a frame that calls a function of its own name in Dynamo's graph-break traceback.

    Dynamo's `collapse_resume_frames` (torch/_dynamo/exc.py, 2.13 to 2.15) folds the resume
    function of a graph break into the frame it resumes (`torch_dynamo_resume_in_f_at_80`
    after `f`) by comparing names once the prefix is gone, so it also folds any two
    consecutive frames of the same name: a user `forward` calling a torch submodule (whose
    `forward` breaks: `nn.TransformerEncoder` given a mask) vanishes from the traceback, and
    the break is located at an outer call (`model(x)`). Here only a real resume frame is
    folded. Versions without the function are left as they are.
    """
    exc = getattr(torch._dynamo, "exc", None)
    original = getattr(exc, "collapse_resume_frames", None)
    strip = getattr(exc, "remove_resume_prefix", None)
    if original is None or strip is None:
        return

    def collapse_resume_frames(stack: Any) -> Any:
        kept = traceback.StackSummary()
        for frame in stack:
            if frame.filename is None:
                continue
            name = strip(frame.name)
            resumes = name != frame.name and bool(kept) and kept[-1].name == name
            frame.name = name
            if resumes:
                kept[-1] = frame
            else:
                kept.append(frame)
        return kept

    for module in ("symbolic_convert", "side_effects"):
        owner = getattr(torch._dynamo, module, None)
        if getattr(owner, "collapse_resume_frames", None) is original:
            owner.collapse_resume_frames = collapse_resume_frames


def apply_dynamo_config(torch: Any, table: dict[str, Any]) -> None:
    """Apply `[tool.breakscan] dynamo-config` (already checked by the parent) before user code
    runs: values as they are, except that a list for a set of functions holds dotted names
    (`"print"`, `"logging.Logger.info"`) and becomes the set of the functions they name (a name
    that does not resolve is left out)."""
    for name, value in table.items():
        if isinstance(value, list) and isinstance(getattr(torch._dynamo.config, name, None), set):
            value = {obj for obj in map(resolve_dotted, value) if obj is not None}
        setattr(torch._dynamo.config, name, value)


def resolve_dotted(dotted: str) -> Any:
    """The object a dotted name names: a builtin (`print`), or the longest importable module
    prefix and attributes after it (`logging.Logger.info`); None when it does not resolve."""
    import builtins
    import importlib

    parts = dotted.split(".")
    if len(parts) == 1:
        return getattr(builtins, dotted, None)
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr, None)
        return obj
    return None


def _uncompiled(fn: Any) -> Any:
    """`fn`, or the method under a user's `@torch.compile` when `fn` is a bound method of a
    compiled method: compiling that bound method again fails on torch 2.13 ("compile_wrapper
    already has a get_compiler_config attribute"), while a compiled plain function compiles."""
    original = getattr(getattr(fn, "__func__", None), "_torchdynamo_orig_callable", None)
    return types.MethodType(original, fn.__self__) if inspect.ismethod(fn) and original is not None else fn


def user_fullgraph(fn: Any) -> bool:
    """Whether `fn` is a function or module the user compiled with `fullgraph=True` (the flag of
    its OptimizeContext: `dynamo_ctx` of an OptimizedModule, the wrapper's closure otherwise)."""
    if not hasattr(fn, "_torchdynamo_orig_callable"):
        return False
    ctx = getattr(fn, "dynamo_ctx", None)
    if ctx is None:
        try:
            ctx = inspect.getclosurevars(fn).nonlocals.get("self")
        except (TypeError, ValueError):
            return False
    return bool(getattr(ctx, "fullgraph", False))


def main(argv: list[str], cwd_on_path: bool = True) -> int:
    """Entry point of the child: `probe REQUEST.json RESULT.jsonl`.

    `cwd_on_path`: whether the interpreter put the working directory first on sys.path (`python
    -c` does, unless PYTHONSAFEPATH/-P); the bootstrap took it off while the probe imported. In
    run mode sys.path[0] is then the script's directory (or the working directory for `-m`), as
    `python` gives it. In examples mode it goes back first on sys.path, except when the working
    directory (the project root) is itself a package (has `__init__.py`): its modules are that
    package's, and as top-level modules they would shadow others (`typing.py` beside
    `__init__.py` would replace the standard library's `typing` for torch). Files of that
    package are imported by their dotted names (`import_target`).

    Examples mode always exits via os._exit (user threads or atexit hooks must not hang or
    crash us after the result is written); run mode exits with the program's exit code after a
    normal interpreter shutdown (the program's atexit hooks run, as they would without us).
    """
    request = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    if request.get("mode") == "run" or (cwd_on_path and not os.path.isfile("__init__.py")):
        sys.path.insert(0, os.getcwd())  # run mode: the entry `run_program` sets to the script's directory
    if request.get("ranks"):  # one rank of a torchrun job (multirank): files of its own
        suffix = f".rank{os.environ.get('RANK', '0')}"
        argv = [argv[0], argv[1] + suffix]
        request["fault_file"] = (request.get("fault_file") or argv[1]) + suffix
    writer = ResultWriter(argv[1])
    fault = open(request["fault_file"], "w") if request.get("fault_file") else sys.__stderr__  # noqa: SIM115
    faulthandler.enable(file=fault)
    # The parent sends SIGTERM on timeout: dump where the user code hangs, then end as SIGTERM does.
    faulthandler.register(signal.SIGTERM, file=fault, all_threads=True, chain=True)
    if request.get("mode") != "run":
        signal.signal(signal.SIGINT, _on_sigint)
    try:
        _run(request, writer)
    except KeyboardInterrupt:  # Ctrl-C forwarded by the parent: keep what is written, stop now
        writer.write({"type": "interrupted"})
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(130)
    return 0


def _run(request: dict[str, Any], writer: ResultWriter) -> None:
    """Set up torch and the capture, then run the request (both modes); never returns."""
    import torch

    device = request.get("device") or "auto"
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    writer.write({"type": "start", "torch_version": torch.__version__, "device": device,
                  "python": sys.version.split()[0], "pid": os.getpid(),
                  **({"rank": int(os.environ["RANK"])} if request.get("ranks") and "RANK" in os.environ else {})})
    collector = install_capture(torch, writer)
    apply_dynamo_config(torch, request.get("dynamo_config") or {})
    if request.get("mode") == "run":
        code = run_program(torch, request, collector, writer)
        sys.stdout.flush()
        sys.stderr.flush()
        sys.exit(code)
    run_targets(torch, request, device, collector, writer)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


_INTERRUPTED: list[int] = []  # SIGINTs received in examples mode


def _on_sigint(signum: int, frame: Any) -> None:
    """Examples mode: remember the interrupt, then raise it where the code runs."""
    _INTERRUPTED.append(signum)
    raise KeyboardInterrupt


def _stop_if_interrupted() -> None:
    """Raise KeyboardInterrupt again if user code caught the first one and went on."""
    if _INTERRUPTED:
        raise KeyboardInterrupt


SKIP_DIRS: tuple[str, ...] = (BREAKSCAN_DIR + os.sep,)
STDLIB_DIRS = tuple({os.path.join(p, "") for k, p in sysconfig.get_paths().items()
                     if k in ("stdlib", "platstdlib")})

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
