"""`%load_ext breakscan`: the `%%breakscan` cell magic, the dynamic pass inside a Jupyter kernel.

`%%breakscan` runs its cell in the kernel, with the kernel's objects, under Dynamo in default
mode with the eager backend (`torch.compile(fn, backend="eager")`: every graph break is seen,
no Inductor compile is paid), then prints the graph breaks, recompiles and guard failures as
the terminal report does, and leaves the kernel as it was for later cells.

What is compiled: the cell's body, as the body of one function whose globals are the kernel's
namespace (`get_ipython().user_ns`), called once. Each name the cell binds at its top level is
a keyword parameter, passed its value in the namespace (so `x = x + 1` reads the earlier `x`),
and comes back in the function's return value, to go back into the namespace after the call:
later cells see the cell's names as after a plain cell (a top-level `del x` becomes `x = <unset>`,
and `x` is then deleted from the namespace). (Not `global` declarations: Dynamo
fails to load such a name after a graph break, GB0354; not `locals()`: after a break it holds
only the names still live; both measured on torch 2.13.) Functions the cell defines close over
the cell's names rather than read them as globals. The value of a last expression is the
magic's result (IPython shows it as `Out[n]`). The cell runs exactly once: the dynamic pass's
`fullgraph=True` check is made only where it needs no second call (no break: captured whole;
a break `fullgraph=True` would also stop at: not captured), else it is left unknown. Functions the cell defines are traced when
it calls them; those of earlier cells too, but their file is IPython's and not shown as yours. IPython syntax in the
cell (line magics, `!ls`) is turned into Python by IPython's own transformer first. The
function's source is written to a temporary file (`cell_N.py`, N the cell's `In [N]` number) so
that Dynamo's messages, tracebacks and the report's code frames can show its lines; its line
numbers are the cell's own, the `%%breakscan` line being line 1. A `yield` or `return` at the top of a cell is refused.

Restored after the cell, whatever happened in it: `torch._dynamo.config` from a deep copy taken
before (the cell's own `torch._dynamo.config.X = v`, and `reorderable_logging_functions.add`,
are undone: a copy kept by reference would share those sets), Dynamo's caches
(`torch._dynamo.reset()`: no compiled code, guards or recompile counts reach a later cell, and
the globals Dynamo installed in the namespace for that code are removed), and
the levels, handlers and filters of every torch logger and `torch._logging`'s settings, which
the capture changes (`torch._logging.set_logs`). The collection and parsing are the dynamic
pass's own (breakscan.dynamic.probe's Collector and EntryRun, breakscan.dynamic.runner's
build_result), run in this process.
"""

from __future__ import annotations

import ast
import atexit
import copy
import logging
import shutil
import tempfile
import sys
import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

CELL_FUNCTION = "__breakscan_cell__"
INSTALLED = ("__compiled_fn_", "__resume_at_", "__builtins_dict___")  # Dynamo's installed globals (2.13)
_LOGGERS = ("torch", "torch._dynamo", "torch._inductor", "torch._dynamo.convert_frame", "torch.__trace")
_CELL_DIR: list[Path] = []


def load_ipython_extension(ipython: Any) -> None:
    """Register `%%breakscan` with `ipython` (an IPython InteractiveShell); `%load_ext breakscan` calls it."""
    ipython.register_magic_function(_magic(ipython), magic_kind="cell", magic_name="breakscan")


def _magic(ipython: Any):
    def breakscan(line: str, cell: str) -> Any:
        """Run the cell under Dynamo (default mode, eager backend) and print its graph breaks,
        recompiles and guard failures; the kernel's Dynamo state and config are restored after."""
        return run_cell(ipython, cell)

    return breakscan


def run_cell(ipython: Any, cell: str, *, console: Any = None) -> Any:
    """Run `cell` in `ipython`'s namespace under Dynamo and print the report on `console`
    (a rich Console; default: one on stdout). Returns the value of the cell's last expression.

    Raises UsageError (IPython's) when torch is not installed, SyntaxError for a cell that is
    not Python once IPython has transformed it or has a top-level return/yield/await; an
    exception raised by the cell's code is reported (BRK902) and then raised again, as a plain
    cell would raise it.
    """
    try:
        import torch
    except ImportError as exc:
        from IPython.core.error import UsageError

        raise UsageError("%%breakscan needs torch in this kernel's environment "
                         "(pip install torch==2.13.0, see breakscan's README)") from exc
    source = ipython.transform_cell(cell)
    # The In[N] number the user sees: IPython 9 counts `execution_count` up before running a cell
    # and shows `displayhook.prompt_count`; IPython 8's `prompt_count` is `execution_count`.
    count = getattr(getattr(ipython, "displayhook", None), "prompt_count", None) or ipython.execution_count
    cell_fn = _cell_function(source, ipython.user_ns, count)
    with _restored_dynamo(torch, ipython.user_ns):
        result, records, error = _capture(torch, cell_fn, ipython.user_ns)
    _print(records, cell_fn.path, console)
    if error is not None:
        raise error
    return result


def cell_dir() -> Path:
    """The temporary directory holding the cells' sources for this kernel (removed at exit)."""
    if not _CELL_DIR:
        _CELL_DIR.append(Path(tempfile.mkdtemp(prefix="breakscan-cells-")))
        atexit.register(shutil.rmtree, _CELL_DIR[0], True)
    return _CELL_DIR[0]


class _Unset:
    """The value of a cell's name that neither the namespace nor the cell has given a value."""

    def __repr__(self) -> str:
        return "<unset: %%breakscan>"


UNSET = _Unset()
UNSET_NAME = "__breakscan_unset__"


@dataclass
class CellFunction:
    """The cell as a function: call `fn(**arguments)`; it returns (the cell's value, the values
    of `names` after it), which `bind` puts back into the namespace."""

    fn: Any
    names: list[str]
    arguments: dict[str, Any]
    path: Path

    def bind(self, values: tuple, namespace: dict) -> None:
        """Put the cell's names back into `namespace`, as a plain cell leaves them (a name the
        cell deleted, `del x`, is deleted there)."""
        for name, value in zip(self.names, values):
            if value is not UNSET:
                namespace[name] = value
            else:
                namespace.pop(name, None)


def _cell_function(source: str, namespace: dict, count: int) -> CellFunction:
    """The cell's body as a function of `namespace` (see the module docstring), and its file."""
    tree = ast.parse(source)
    ast.increment_lineno(tree, 1)  # line 1 is the `%%breakscan` line: lines count as the cell shows them
    body = list(tree.body) or [ast.Pass()]
    for node in ast.walk(ast.Module(body=body, type_ignores=[])):
        if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Return, ast.Await)) and _top_level(node, body):
            raise SyntaxError("%%breakscan: a cell with a top-level return, yield or await cannot run as a function")
    names = _bound_names(body)
    body = _Deletes().visit(ast.Module(body=body, type_ignores=[])).body
    last = body[-1]
    value: ast.expr = ast.Constant(value=None)
    if isinstance(last, ast.Expr):
        value = body.pop().value
    bound = ast.Tuple(elts=[ast.Name(id=n, ctx=ast.Load()) for n in names], ctx=ast.Load())
    body.append(ast.copy_location(ast.Return(value=ast.Tuple(elts=[value, bound], ctx=ast.Load())), last))
    module = ast.fix_missing_locations(ast.Module(body=[_function(body, names)], type_ignores=[]))
    path = cell_dir() / f"cell_{count}.py"
    path.write_text(f"# %%breakscan\n{source}", encoding="utf-8")  # the cell's lines, as numbered in the code
    scope: dict = {}
    exec(compile(module, str(path), "exec"), namespace, scope)  # noqa: S102 - the user's own cell
    arguments = {n: namespace.get(n, UNSET) for n in names}
    return CellFunction(scope[CELL_FUNCTION], names, {**arguments, UNSET_NAME: UNSET}, path)


class _Deletes(ast.NodeTransformer):
    """`del x` of a cell's own name becomes `x = <unset>` (the name must still be there for the
    function's return; `bind` deletes it from the namespace); nested scopes are left alone."""

    def visit_FunctionDef(self, node: ast.AST) -> ast.AST:
        return node

    visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_FunctionDef

    def visit_Delete(self, node: ast.Delete) -> ast.AST | list[ast.AST]:
        names = [t for t in node.targets if isinstance(t, ast.Name)]
        if not names:
            return node
        unset = [ast.copy_location(ast.Assign(targets=[ast.Name(id=t.id, ctx=ast.Store())],
                                              value=ast.Name(id=UNSET_NAME, ctx=ast.Load())), node) for t in names]
        others = [t for t in node.targets if not isinstance(t, ast.Name)]
        return [ast.copy_location(ast.Delete(targets=others), node), *unset] if others else unset


def _function(body: list[ast.stmt], params: list[str]) -> ast.FunctionDef:
    """`def __breakscan_cell__(*, params, __breakscan_unset__): body`, at the cell's first statement."""
    params = [*params, UNSET_NAME]
    arguments = ast.arguments(posonlyargs=[], args=[], kwonlyargs=[ast.arg(arg=n) for n in params],
                              kw_defaults=[None] * len(params), defaults=[])
    extra = {"type_params": []} if sys.version_info >= (3, 12) else {}
    func = ast.FunctionDef(name=CELL_FUNCTION, args=arguments, body=body, decorator_list=[], returns=None, **extra)
    return ast.copy_location(func, body[0])


def _bound_names(body: list[ast.stmt]) -> list[str]:
    """The names the cell binds at its top level: its function's locals (CPython's compiler)."""
    probe = ast.fix_missing_locations(ast.Module(body=[_function(copy.deepcopy(body), [])], type_ignores=[]))
    code = next(c for c in compile(probe, "<breakscan-cell>", "exec").co_consts if hasattr(c, "co_varnames"))
    return sorted((set(code.co_varnames) | set(code.co_cellvars)) - {UNSET_NAME})


def _top_level(node: ast.AST, body: list[ast.stmt]) -> bool:
    """Whether `node` is in the cell's own code, not in a function or class it defines."""
    nested = [n for stmt in body for n in ast.walk(stmt)
              if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef))]
    return not any(node in ast.walk(n) for n in nested if n is not node)


@contextmanager
def _restored_dynamo(torch: Any, namespace: dict) -> Iterator[None]:
    """Dynamo's config (from a deep copy), caches, the globals it installed in `namespace` and
    the torch loggers as they were."""
    from torch._logging import _internal

    settings = copy.deepcopy(torch._dynamo.config.get_config_copy())
    state, state_dict = _internal.log_state, copy.deepcopy(_internal.log_state.__dict__)
    loggers = {lg: (lg.level, list(lg.handlers), lg.propagate, list(lg.filters), lg.disabled)
               for lg in _torch_loggers(_internal)}
    names = set(namespace)
    torch._dynamo.reset()  # the cell starts from no compiled code, as `breakscan` runs do
    try:
        yield
    finally:
        torch._dynamo.reset()
        _drop_installed_globals(torch, namespace, names)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # load_config re-sets deprecated settings too
            torch._dynamo.config.load_config(copy.deepcopy(settings))
        # By hand, not with `_init_logs()`: that re-reads TORCH_LOGS and rebuilds every handler.
        state.__dict__.clear()
        state.__dict__.update(state_dict)
        _internal.log_state = state
        for lg, (level, handlers, propagate, filters, disabled) in loggers.items():
            lg.handlers[:] = handlers
            lg.filters[:] = filters
            lg.setLevel(level)
            lg.propagate, lg.disabled = propagate, disabled


def _drop_installed_globals(torch: Any, namespace: dict, before: set[str]) -> None:
    """Remove the globals Dynamo installed in `namespace` for the cell's compiled code
    (`__compiled_fn_*`, `__resume_at_*`, `__builtins_dict___*`), now that `reset()` dropped
    that code. Left alone, they stay in the kernel's namespace (`dir()`, `%who`) and keep the
    code alive, and when the kernel clears its namespace at exit each of Dynamo's clean-up hooks
    fails on its missing name ("Exception ignored ... KeyError"). Hooked names go through
    Dynamo's own hooks (torch._dynamo.utils.CleanupManager, keyed by the compiled code), so that
    none runs again later; names of compiles Dynamo abandoned (a graph break in a loop skips
    the frame) have no hook left and are deleted when they were not there before the cell."""
    manager = getattr(getattr(torch._dynamo.utils, "CleanupManager", None), "instance", None)
    values = getattr(manager, "values", None)
    if isinstance(values, dict):  # private API: only where it is as on torch 2.13
        for idx in [i for i, hooks in values.items() if any(getattr(h, "scope", None) is namespace for h in hooks)]:
            try:
                manager._remove_id(idx)  # runs the hooks (each deletes its name), then forgets the code
            except KeyError:  # a name already gone: forget the rest of the entry
                values.pop(idx, None)
                getattr(manager, "refs", {}).pop(idx, None)
        hooked = {getattr(h, "name", None) for hooks in values.values() for h in hooks}
        for name in [n for n in namespace if n not in before and n not in hooked and n.startswith(INSTALLED)]:
            del namespace[name]


def _torch_loggers(internal: Any) -> list[logging.Logger]:
    """Every logger `torch._logging.set_logs` configures (registered logs, artifacts, their
    children, the structured trace), and those the dynamic pass's capture changes."""
    registry = getattr(internal, "log_registry", None)  # private: read defensively
    names = set(_LOGGERS)
    for method in ("get_log_qnames", "get_artifact_log_qnames", "get_child_log_qnames"):
        names.update(getattr(registry, method, lambda: ())())
    return [logging.getLogger(name) for name in sorted(names)]


class _Records:
    """The probe's result writer, in memory."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []

    def write(self, record: dict[str, Any]) -> None:
        self.records.append(record)


def _capture(torch: Any, cell: CellFunction, namespace: dict) -> tuple[Any, list[dict[str, Any]], BaseException | None]:
    """Call `fn` once under Dynamo with the dynamic pass's capture, its names bound into
    `namespace`: (the cell's value, the records, the exception it raised or None)."""
    from breakscan.dynamic import probe

    fn, path = cell.fn, cell.path
    writer = _Records()
    writer.write({"type": "start", "torch_version": torch.__version__, "device": "kernel"})
    collector = probe.install_capture(torch, writer)
    name = f"{path}:{CELL_FUNCTION}"
    writer.write({"type": "entry_start", "entry": name, "path": str(path), "line": 1,
                  "call_path": str(path), "call_line": 1})
    collector.begin(name)
    run = probe.EntryRun(torch, fn, name, (str(path), 1), "eager", fullgraph_rerun=False)
    collector.on_break = run.on_break
    result, error = None, None
    run.first, collector.call, collector.active = ((), cell.arguments), 1, True
    try:
        result, values = run.compiled(**cell.arguments)
        cell.bind(values, namespace)
        run.calls = 1
    except Exception as exc:  # the cell's own error: reported, then raised as a plain cell would
        run.raised, error = True, exc
        probe.error_record(writer, name, "call", exc, "BRK902", 1)
    finally:
        collector.active = False
    run.finish(collector, writer)
    collector.on_break = None
    writer.write({"type": "done", "index": 0})
    return result, writer.records, error


def _print(records: list[dict[str, Any]], path: Path, console: Any) -> None:
    """The report of `records` as `breakscan` prints it in a terminal."""
    from rich.console import Console

    from breakscan import __version__
    from breakscan.catalog import load_catalog
    from breakscan.dynamic.runner import ChildOutcome, build_result
    from breakscan.findings import Report
    from breakscan.report.terminal import print_report

    # "Your code": this cell's file and those of earlier cells, which ipykernel writes under the
    # same temporary directory (`ipykernel_PID/HASH.py`); torch and installed packages are not.
    root = Path(tempfile.gettempdir())
    result = build_result(records, ChildOutcome(returncode=0, timed_out=False, seconds=0.0), target=path,
                          project_root=root, timeout=0.0)
    report = Report(root=root, findings=result.findings, files_scanned=0, entries=result.entries,
                    torch_version=result.torch_version, dynamic_ran=True, device="kernel",
                    tool_version=__version__)
    print_report(report, load_catalog(), console or Console(), quiet=False)
