"""Dynamo settings in effect for each compile region, and which findings they silence.

Dynamo's configuration (`torch._dynamo.config`) changes what breaks: `capture_scalar_outputs`
captures `.item()`, `ignore_logging_functions` makes a logging call a no-op, and so on. This
module reads, per file with `ast` (phase A, stored on `ModuleInfo.dynamo`):

- writes anywhere in the file: `torch._dynamo.config.X = v`, `config.X.add(f)`, `.update({...})`,
  `|= {...}` (through any import alias of `torch._dynamo.config`);
- `os.environ["TORCHDYNAMO_..."] = "1"` / `os.environ.setdefault(...)` for the variables Dynamo reads;
- `config.patch(X=v)` / `patch({"X": v})` / `patch("X", v)` as a `with` block or as a decorator:
  it applies to the compiled callables *called* inside (measured on 2.13: compiling inside the
  block and calling outside does not apply it; `@patch(...)` above `@torch.compile` applies,
  below it does not);
- the options of `torch.compile(..., fullgraph=True)`, `@torch.compile(fullgraph=True)` and
  `m.compile(fullgraph=True)`, and likewise `dynamic=True` (sizes and integer inputs symbolic).

SettingsResolver then gives each region function its effective DynamoSettings: Dynamo's
defaults, then the environment of the scan, then `[tool.breakscan] dynamo-config`, then the writes
of the files that define or compile its root (after the import-time writes of the project modules
they import outside functions: those run at import), then the patches around calls of its root,
then the root's compile options. Rules declare in their TOML which settings silence them
(`silenced_by`), see `silenced`.
"""

from __future__ import annotations

import ast
import functools
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from breakscan.static.index import COMPILE_CALLS, ast_dotted, walk_nodes

CONFIG_MODULE = "torch._dynamo.config"
# Settings that change what breaks, with Dynamo 2.13's defaults (torch/_dynamo/config.py).
DEFAULTS: dict[str, Any] = {
    "capture_scalar_outputs": False,
    "capture_dynamic_output_shape_ops": False,
    "reorderable_logging_functions": frozenset(),
    "ignore_logging_functions": frozenset(),
    "trace_autograd_ops": False,
    "graph_break_on_nn_param_ctor": True,
}
ALIASES = {"ignore_logger_methods": "ignore_logging_functions"}  # Config(alias=...) in config.py
# Environment variables torch/_dynamo/config.py reads for these settings ("1" turns them on).
ENV_VARS = {
    "TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS": "capture_scalar_outputs",
    "TORCHDYNAMO_CAPTURE_DYNAMIC_OUTPUT_SHAPE_OPS": "capture_dynamic_output_shape_ops",
}
# fullgraph=True turns these on for its region (measured on 2.13: `.item()`, `.tolist()`, `int(t)`,
# a tensor size argument, `nonzero` and boolean-mask indexing all compile in one graph there).
FULLGRAPH_IMPLIES = {"capture_scalar_outputs": True, "capture_dynamic_output_shape_ops": True}
_SILENCER = re.compile(r"^(callee in )?([a-z_][a-z0-9_]*)(?:=(true|false))?(?: with (plain|constant) arguments)?$")


class SettingError(ValueError):
    """An unknown Dynamo setting name or a value of the wrong type."""


@functools.lru_cache(maxsize=1)
def known_settings() -> frozenset[str]:
    """Names of the installed torch's Dynamo settings (top-level assignments of
    torch/_dynamo/config.py, read without importing torch), plus DEFAULTS and ALIASES."""
    import importlib.util

    names = set(DEFAULTS) | set(ALIASES)
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        spec = None
    for loc in (spec.submodule_search_locations or []) if spec else []:
        path = Path(loc) / "_dynamo" / "config.py"
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, ValueError):
            continue
        for stmt in tree.body:
            targets = (stmt.targets if isinstance(stmt, ast.Assign)
                       else [stmt.target] if isinstance(stmt, ast.AnnAssign) else [])
            names.update(t.id for t in targets if isinstance(t, ast.Name) and not t.id.startswith("_"))
    return frozenset(names)


def check_table(table: dict[str, Any]) -> dict[str, Any]:
    """Validate `[tool.breakscan] dynamo-config`: known names (known_settings), booleans for boolean
    settings, lists of dotted names (`"print"`, `"logging.Logger.info"`) for the function sets.
    Returns the table normalised (sets as frozensets). Raises SettingError."""
    out: dict[str, Any] = {}
    for key, value in table.items():
        name = ALIASES.get(key, key)
        if key not in known_settings():
            raise SettingError(f"unknown Dynamo setting {key!r} in dynamo-config")
        default = DEFAULTS.get(name)
        if isinstance(default, frozenset):
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise SettingError(f"dynamo-config {key} must be a list of function names like \"print\"")
            out[name] = frozenset(_normal(v) for v in value)
        elif isinstance(default, bool) and not isinstance(value, bool):
            raise SettingError(f"dynamo-config {key} must be true or false")
        else:
            out[name] = value
    return out


def _normal(name: str) -> str:
    return name.removeprefix("builtins.")


def check_silencer(text: str) -> None:
    """Raise ValueError unless `text` is a `silenced_by` entry: `setting`, `setting=false`, or
    `callee in setting` (the matched call's callee is in a function-set setting), optionally
    followed by ` with plain arguments` (every argument a literal, an f-string of names, or a
    name: what Dynamo's `can_reorder_logs` accepts, tensors and constants) or ` with constant
    arguments` (literals only: `logging.info("v %s", t)` with a tensor still breaks on 2.13)."""
    m = _SILENCER.match(text)
    if not m or m.group(2) not in DEFAULTS:
        raise ValueError(f"bad silenced_by entry {text!r} (known settings: {', '.join(DEFAULTS)})")


@dataclass(frozen=True)
class DynamoSettings:
    """Effective settings of a region: `values` by name (sorted pairs, so equal settings compare
    and repr equal: the static cache keys on the repr), and whether the region is fullgraph."""

    values: tuple[tuple[str, Any], ...] = ()
    fullgraph: bool = False
    dynamic: bool = False  # compiled with `dynamic=True`: sizes and integer inputs are symbolic

    def get(self, name: str) -> Any:
        """The value of `name`, else Dynamo's default."""
        return dict(self.values).get(name, DEFAULTS.get(name))

    @staticmethod
    def make(values: dict[str, Any], fullgraph: bool = False, dynamic: bool = False) -> DynamoSettings:
        """Settings from a name→value dict; fullgraph adds FULLGRAPH_IMPLIES; `dynamic`: the
        region's root is compiled with `dynamic=True`."""
        merged = {**values, **(FULLGRAPH_IMPLIES if fullgraph else {})}
        items = tuple(sorted((k, tuple(sorted(v)) if isinstance(v, frozenset) else v) for k, v in merged.items()
                             if v != DEFAULTS.get(k)))
        return DynamoSettings(items, fullgraph, dynamic)


def silenced(silenced_by: tuple[str, ...], settings: DynamoSettings, callees: set[str],
             arguments: str = "") -> str | None:
    """The `silenced_by` entry that holds under `settings` (a match whose callee names are
    `callees`; `arguments`: "constant", "plain" or "" as plain_arguments says), else None."""
    for entry in silenced_by:
        m = _SILENCER.match(entry)
        if not m or (m.group(4) and (not arguments or (m.group(4) == "constant" and arguments != "constant"))):
            continue
        value = settings.get(m.group(2))
        if m.group(1):
            if set(value or ()) & callees:
                return entry
        elif value == (m.group(3) != "false"):
            return entry
    return None


# phase A: per-file collection ----------------------------------------------------------------
@dataclass
class PatchScope:
    """A `with config.patch(...)` block or a `@config.patch(...)` function: its writes and the
    names called inside (local dotted names); `root` is the decorated function when it is itself
    compiled under the patch (`@patch` above `@torch.compile`)."""

    writes: list[tuple[str, str, Any]]
    calls: list[str] = field(default_factory=list)
    root: str = ""


@dataclass
class FileSettings:
    """What one file does to Dynamo's settings (picklable; see the module docstring)."""

    writes: list[tuple[str, str, Any]] = field(default_factory=list)  # (setting, "set"|"add", value)
    import_writes: list[tuple[str, str, Any]] = field(default_factory=list)  # the writes outside functions
    env: dict[str, str] = field(default_factory=dict)
    patches: list[PatchScope] = field(default_factory=list)
    options: list[tuple[str, bool]] = field(default_factory=list)  # (compile target or "def:qualname", fullgraph)
    dynamic: list[str] = field(default_factory=list)  # compile targets ("def:qualname") compiled with dynamic=True
    compiled_vars: dict[str, str] = field(default_factory=dict)  # `opt = torch.compile(fn)`: opt -> fn

    def __bool__(self) -> bool:
        return bool(self.writes or self.env or self.patches or self.options or self.dynamic)


def collect(info, tree: ast.Module) -> FileSettings:
    """The FileSettings of a module (`info`: its ModuleInfo, for import aliases)."""
    return _Collector(info).run(tree)


class _Collector:
    def __init__(self, info) -> None:
        self.info = info
        self.out = FileSettings()
        self.qualnames: dict[int, str] = {}  # id(method node) -> "Class.method"
        self.function_spans: list[tuple[int, int]] = []  # lines of each def: its writes run when called

    def _qual(self, node: ast.AST) -> str:
        name = ast_dotted(node)
        return self.info.qualify(name) if name else ""

    def _is_config(self, node: ast.AST) -> bool:
        return self._qual(node) == CONFIG_MODULE

    def _value(self, node: ast.AST) -> Any:
        """A literal, or a set of qualified function names; None when unknown."""
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, (ast.Set, ast.List, ast.Tuple)):
            names = [self._qual(e) for e in node.elts]
            return frozenset(_normal(n) for n in names) if all(names) else None
        if isinstance(node, ast.Call) and self._qual(node.func) == "set" and not node.args:
            return frozenset()
        return None

    def _patch_writes(self, call: ast.AST) -> list[tuple[str, str, Any]] | None:
        """`config.patch(...)`'s writes, or None when `call` is not one."""
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                and call.func.attr == "patch" and self._is_config(call.func.value)):
            return None
        writes = [(kw.arg, "set", self._value(kw.value)) for kw in call.keywords if kw.arg]
        if call.args and isinstance(call.args[0], ast.Dict):
            writes += [(k.value, "set", self._value(v)) for k, v in zip(call.args[0].keys, call.args[0].values)
                       if isinstance(k, ast.Constant) and isinstance(k.value, str)]
        elif len(call.args) == 2 and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str):
            writes.append((call.args[0].value, "set", self._value(call.args[1])))
        return [(ALIASES.get(n, n), op, v) for n, op, v in writes if v is not None]

    def _compile_fullgraph(self, call: ast.Call) -> bool | None:
        for kw in call.keywords:  # `nopython=True` is torch._dynamo.optimize's spelling
            if kw.arg in ("fullgraph", "nopython") and isinstance(kw.value, ast.Constant):
                return bool(kw.value.value)
        return None

    @staticmethod
    def _compile_dynamic(call: ast.Call) -> bool:
        """`dynamic=True` among a compile call's options."""
        return any(kw.arg == "dynamic" and isinstance(kw.value, ast.Constant) and kw.value.value is True
                   for kw in call.keywords)

    def _compile_options(self, node: ast.AST) -> ast.Call | None:
        """The call holding the options of `torch.compile(f, ...)` / `torch.compile(...)(f)`."""
        if not isinstance(node, ast.Call) or not node.args:
            return None
        if self._qual(node.func) in COMPILE_CALLS:
            return node
        inner = node.func
        if isinstance(inner, ast.Call) and not inner.args and self._qual(inner.func) in COMPILE_CALLS:
            return inner
        return None

    def _compile_call(self, node: ast.AST) -> tuple[str, bool | None] | None:
        """(target, fullgraph) of `torch.compile(f, ...)` or `torch.compile(...)(f)`, else None."""
        options = self._compile_options(node)
        if options is None:
            return None
        return _target_text(node.args[0]), self._compile_fullgraph(options)  # type: ignore[attr-defined]

    def run(self, tree: ast.Module) -> FileSettings:
        for stmt in tree.body:  # qualnames as the index writes them: `f`, `Class.method`
            if isinstance(stmt, ast.ClassDef):
                for sub in stmt.body:
                    if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        self.qualnames[id(sub)] = f"{stmt.name}.{sub.name}"
        for node in walk_nodes(tree):  # breadth-first: a def comes before the writes inside it
            if isinstance(node, (ast.Assign, ast.AugAssign)):
                self._assign(node)
            elif isinstance(node, ast.Call):
                self._call(node)
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                for item in node.items:
                    writes = self._patch_writes(item.context_expr)
                    if writes:
                        self.out.patches.append(PatchScope(writes, _called_names(node.body)))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.function_spans.append((node.lineno, node.end_lineno or node.lineno))
                self._function(node)
            elif isinstance(node, ast.Lambda):
                self.function_spans.append((node.lineno, node.end_lineno or node.lineno))
        return self.out

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        qualname = self.qualnames.get(id(node), node.name)
        compile_at = None
        for i, dec in enumerate(node.decorator_list):
            func = dec.func if isinstance(dec, ast.Call) else dec
            if self._qual(func) in COMPILE_CALLS:
                compile_at = i
                fullgraph = self._compile_fullgraph(dec) if isinstance(dec, ast.Call) else None
                if fullgraph is not None:
                    self.out.options.append((f"def:{qualname}", fullgraph))
                if isinstance(dec, ast.Call) and self._compile_dynamic(dec):
                    self.out.dynamic.append(f"def:{qualname}")
        for i, dec in enumerate(node.decorator_list):
            writes = self._patch_writes(dec)
            if writes:
                above = compile_at is not None and i < compile_at
                self.out.patches.append(PatchScope(writes, _called_names(node.body),
                                                   root=qualname if above else ""))

    def _assign(self, node: ast.Assign | ast.AugAssign) -> None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            if isinstance(target, ast.Attribute) and self._is_config(target.value):
                value = self._value(node.value)
                if value is not None:
                    op = "add" if isinstance(node, ast.AugAssign) else "set"
                    self._write((ALIASES.get(target.attr, target.attr), op, value), node)
            elif (isinstance(target, ast.Subscript) and self._qual(target.value) == "os.environ"
                  and isinstance(target.slice, ast.Constant) and target.slice.value in ENV_VARS
                  and isinstance(node.value, ast.Constant)):
                self.out.env[target.slice.value] = str(node.value.value)
            elif isinstance(target, ast.Name) and self._compile_call(node.value):
                compiled = self._compile_call(node.value)[0]
                if compiled:
                    self.out.compiled_vars[target.id] = compiled

    def _write(self, write: tuple[str, str, Any], node: ast.AST) -> None:
        self.out.writes.append(write)
        if not any(first <= node.lineno <= last for first, last in self.function_spans):
            self.out.import_writes.append(write)

    def _call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in ("add", "update") and node.args \
                and isinstance(func.value, ast.Attribute) and self._is_config(func.value.value):
            value = self._value(node.args[0]) if func.attr == "update" else self._value(ast.Set([node.args[0]]))
            if value is not None:
                self._write((ALIASES.get(func.value.attr, func.value.attr), "add", value), node)
        elif isinstance(func, ast.Attribute) and func.attr == "setdefault" and self._qual(func.value) == "os.environ" \
                and len(node.args) == 2 and all(isinstance(a, ast.Constant) for a in node.args) \
                and node.args[0].value in ENV_VARS:
            self.out.env.setdefault(node.args[0].value, str(node.args[1].value))
        elif self._compile_call(node):
            target, fullgraph = self._compile_call(node)
            if fullgraph is not None and target:
                self.out.options.append((target, fullgraph))
            if target and self._compile_dynamic(self._compile_options(node)):
                self.out.dynamic.append(target)
        elif isinstance(func, ast.Attribute) and func.attr == "compile" and not node.args:
            fullgraph = self._compile_fullgraph(node)
            target = ast_dotted(func.value)
            if fullgraph is not None and target:
                self.out.options.append((target, fullgraph))
            if target and self._compile_dynamic(node):
                self.out.dynamic.append(target)


def _target_text(node: ast.AST) -> str:
    """A compile target as index.py writes it: `name`, `a.b`, or `Class()`."""
    if isinstance(node, ast.Call):
        callee = ast_dotted(node.func)
        return callee + "()" if callee else ""
    return ast_dotted(node) or ""


def _called_names(body: list[ast.stmt]) -> list[str]:
    names = []
    for stmt in body:
        for node in walk_nodes(stmt):
            if isinstance(node, ast.Call):
                name = ast_dotted(node.func)
                if name:
                    names.append(name)
    return names


# resolution -----------------------------------------------------------------------------------
def environment_settings(environ: dict[str, str] | None = None) -> dict[str, Any]:
    """Settings the scan's environment turns on (ENV_VARS set to "1")."""
    environ = os.environ if environ is None else environ
    return {name: True for var, name in ENV_VARS.items() if environ.get(var) == "1"}


def _apply(values: dict[str, Any], writes: list[tuple[str, str, Any]]) -> None:
    for name, op, value in writes:
        if op == "add" and isinstance(value, frozenset):
            values[name] = frozenset(values.get(name, DEFAULTS.get(name) or frozenset())) | value
        else:
            values[name] = value


class SettingsResolver:
    """Effective DynamoSettings of each region (see the module docstring for the order).

    `finder` is the RegionFinder that computed `regions`; `table` the checked
    `[tool.breakscan] dynamo-config`; `environ` the scan's environment (default os.environ).
    """

    def __init__(self, finder, regions: dict, table: dict[str, Any] | None = None,
                 environ: dict[str, str] | None = None) -> None:
        self.finder = finder
        self.base = {**environment_settings(environ), **(table or {})}
        self.roots: dict[str, list] = {}  # root qualname -> root regions
        for region in regions.values():
            if len(region.chain) == 1:
                self.roots.setdefault(region.chain[0], []).append(region)
        self._per_root: dict[tuple, dict[str, Any]] = {}  # root key -> {"writes": [...], "fullgraph": bool}
        self._closures: dict[str, list] = {}  # module name -> _import_closure
        self._writers: bool | None = None  # whether any module writes settings at import
        self._collect()

    def _root_keys(self, info, target: str) -> list[tuple]:
        """Keys of the root regions a compile target or called name of `info` runs."""
        settings = getattr(info, "dynamo", None)
        if settings is not None and target in settings.compiled_vars:
            target = settings.compiled_vars[target]
        found = []
        if target.endswith("()"):
            found = self.finder.resolve_name(info.qualify(target[:-2]))
        else:
            head, _, attr = target.partition(".")
            if head in info.var_classes:
                cls_q = info.var_classes[head]
                meth = self.finder.index.method(cls_q, attr or "forward")
                found = [meth] if meth else []
            else:
                found = self.finder.resolve_name(info.qualify(target))
        return [(str(mod.path), fn.qualname, fn.occurrence) for mod, _, fn in found]

    def _entry(self, key: tuple) -> dict[str, Any]:
        return self._per_root.setdefault(key, {"files": set(), "writes": [], "fullgraph": None, "dynamic": False})

    def _option_entries(self, info, target: str) -> list[dict[str, Any]]:
        """The entries of the roots a compile option of `info` names (`def:qualname` for a
        decorated def of the file, else a compile target), each noting the file."""
        keys = [(str(info.path), target[4:], 0)] if target.startswith("def:") else self._root_keys(info, target)
        entries = [self._entry(key) for key in keys]
        for entry in entries:
            entry["files"].add(str(info.path))
        return entries

    def _collect(self) -> None:
        for info in self.finder.index.modules.values():
            for target in info.compile_targets:  # its imports' settings apply (_import_closure)
                for key in self._root_keys(info, target):
                    self._entry(key)["files"].add(str(info.path))
            settings = getattr(info, "dynamo", None)
            if not settings:
                continue
            for target, fullgraph in settings.options:
                for entry in self._option_entries(info, target):
                    entry["fullgraph"] = entry["fullgraph"] or fullgraph
            for target in settings.dynamic:
                for entry in self._option_entries(info, target):
                    entry["dynamic"] = True
            for scope in settings.patches:
                keys = {k for name in scope.calls for k in self._root_keys(info, name)}
                if scope.root:
                    keys.add((str(info.path), scope.root, 0))
                for key in keys:
                    self._entry(key)["writes"].extend(scope.writes)

    def _file_values(self, path: str) -> dict[str, Any]:
        values: dict[str, Any] = {}
        info = self.finder.index.module_at(path)
        for imported in self._import_closure(info) if info else ():
            _apply(values, imported.dynamo.import_writes)
        settings = getattr(info, "dynamo", None) if info else None
        if settings:
            values.update(environment_settings(settings.env))
            _apply(values, settings.writes)
        return values

    def _import_closure(self, info) -> list:
        """The project modules `info` imports, directly or through others, with their parent
        packages and its own (Python runs each on import), that write Dynamo settings outside
        functions; a module's imports come before it. Cached per module."""
        modules = self.finder.index.modules
        if self._writers is None:
            self._writers = any(getattr(m.dynamo, "import_writes", None) for m in modules.values())
        if not self._writers:
            return []
        if info.name in self._closures:
            return self._closures[info.name]
        order: list = []
        seen = {info.name}

        def visit(mod) -> None:
            parts = mod.name.split(".")  # its parent packages run first (`trainer/__init__.py`)
            names = {".".join(parts[:i]) for i in range(1, len(parts))}
            for target in mod.imports.values():  # `a.b.f`: a, a.b and a.b.f may each be a module
                pieces = target.split(".")
                names.update(".".join(pieces[:i]) for i in range(1, len(pieces) + 1))
            for name in sorted(names):
                found = modules.get(name)
                if found is not None and name not in seen:
                    seen.add(name)
                    visit(found)
                    if getattr(found.dynamo, "import_writes", None):
                        order.append(found)

        visit(info)
        self._closures[info.name] = order
        return order

    def for_region(self, region) -> DynamoSettings:
        """The effective settings of a region function; with several roots of the root's name,
        the one in the region's own file, else the first."""
        roots = self.roots.get(region.chain[0], [])
        root = next((r for r in roots if r.module.path == region.module.path), roots[0] if roots else region)
        entry = self._per_root.get(root.key, {"files": set(), "writes": [], "fullgraph": None, "dynamic": False})
        values = dict(self.base)
        for path in sorted({str(root.module.path), str(region.module.path), *entry["files"]}):
            values.update(self._file_values(path))
        _apply(values, entry["writes"])
        return DynamoSettings.make(values, bool(entry["fullgraph"]), entry["dynamic"])


def callee_names(info, node) -> set[str]:
    """Qualified names a matched libcst call may be known by in a function-set setting:
    `print`, `logging.info`, `mod.logger.info`, and `logging.Logger.info` for a logger method."""
    import libcst as cst

    from breakscan.static.syntax import dotted_name

    if not isinstance(node, cst.Call):
        return set()
    name = dotted_name(node.func)
    if not name:
        return set()
    qual = _normal(info.qualify(name))
    names = {qual}
    if isinstance(node.func, cst.Attribute) and not qual.startswith("logging."):  # a logger object's method
        names.add(f"logging.Logger.{node.func.attr.value}")
    return names


def plain_arguments(node) -> str:
    """"constant" when every argument of a libcst call is a literal; "plain" when each is a
    literal, a bare name, or an f-string of names (Dynamo reorders a logging call only when its
    arguments are tensors, constants or format strings: `can_reorder_logs` in
    torch/_dynamo/variables/misc.py; `file=sys.stderr`, `x.shape` or a list display are not);
    else ""."""
    import libcst as cst

    if not isinstance(node, cst.Call):
        return ""
    constant = True
    literals = (cst.SimpleString, cst.ConcatenatedString, cst.Integer, cst.Float)
    for arg in node.args:
        value = arg.value
        if arg.star or (arg.keyword is not None and arg.keyword.value == "file"):
            return ""
        if isinstance(value, cst.FormattedString):
            constant = False
            if not all(isinstance(part.expression, cst.Name) for part in value.parts
                       if isinstance(part, cst.FormattedStringExpression)):
                return ""
        elif isinstance(value, cst.Name):
            constant = constant and value.value in ("None", "True", "False")
        elif not isinstance(value, literals):
            return ""
    return "constant" if constant else "plain"
