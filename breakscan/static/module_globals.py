"""Kinds of module-level globals (`MASK = torch.ones(3)`, `SCALE = 2.0`, `TABLE = [torch.ones(3)]`).

Dynamo reads a module global inside a compile region like a local: a global tensor is a graph
input (wrapped like a parameter, guarded on its identity), so `if MASK.any():` breaks (GB0170)
and `MASK.sum().item()` breaks (GB0124) exactly as for a local tensor (measured on torch 2.13,
backend "eager"). The index records, per module, the globals whose value kind is certain:

- bound once at module level (an assignment, not in a loop), by a torch factory call
  (`torch.ones(...)`, `torch.nn.Parameter(...)`, with tensor methods chained), arithmetic on
  such a value, a constant or a tuple of constants, or a list/tuple/dict display of tensors;
- never bound again: no second module-level binding (assignment, import, `def`, `for`, `with`,
  `del`, augmented assignment), no `global NAME` in any function of the module, no
  `module.NAME = ...` from a module that imports it;
- a list or dict of tensors never changed in place (`TABLE.append(...)`, `LOOKUP[k] = ...`)
  anywhere in its module (one of Python values stays a Python value whatever it holds).

A global bound once (same conditions) to an instance of an `nn.Module` class (`model = Net()`,
`torch.nn.Linear(4, 2).eval()`) is a module where its own module reads it: calling it runs the
class's `forward`, which Dynamo inlines into the region, and gives a tensor as for `self.sub(x)`.

Anything else stays unknown (precision first: unknown is not flagged).
"""

from __future__ import annotations

import ast
from collections import Counter
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from breakscan.static.index import ModuleInfo, ProjectIndex
    from breakscan.static.tensors import T

# Calls that make a tensor, by qualified name (tensors.TORCH_FACTORIES plus parameters and buffers).
_PARAMETERS = {"torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.Buffer",
               "torch.nn.parameter.Buffer"}
# Tensor methods that make a boolean tensor (index.TENSOR_CONVERSIONS keep a tensor a tensor).
_BOOL = {"bool", "eq", "ne", "lt", "le", "gt", "ge", "logical_not", "isnan", "isfinite"}
_IN_PLACE_CONTAINER = {"append", "extend", "insert", "remove", "pop", "clear", "update", "setdefault",
                       "popitem", "sort", "reverse", "__setitem__", "__delitem__"}


def collect(info: ModuleInfo, tree: ast.Module, declared_global: set[str]) -> None:
    """Fill `info.global_kinds` (name -> a tensors.T value), `info.global_instances` (name -> the
    qualified class a single binding builds, `model = Net()`) and `info.foreign_stores` (qualified
    `module.NAME` that this module re-binds by attribute); `declared_global`: the names some
    function of the module declares `global`. Call after the functions are indexed (their
    `attr_stores` and `calls` are read). Cost: the module-level statements, plus one walk of the
    tree only when a global list or dict of tensors exists (to see it changed in place)."""
    from breakscan.static.index import factory_call, instance_class  # index imports this module

    counts: Counter[str] = Counter()
    single: dict[str, ast.expr] = {}
    module_stores: list[str] = []
    _bindings(tree.body, counts, single, top=True, stores=module_stores)
    kinds: dict[str, str] = {}
    for name, value in single.items():
        if counts[name] != 1 or name in declared_global:
            continue
        kind = _value_kind(info, value, kinds)
        if kind is not None:
            kinds[name] = kind
        elif isinstance(value, ast.Call) and (cls := instance_class(info, value)):
            info.global_instances[name] = cls  # `model = Net().to(device)`: a module if Net is one
        elif isinstance(value, ast.Call) and (factory := factory_call(info, value)):
            info.global_factory_calls[name] = factory  # `model = build(cfg)`
    # A list/dict of Python values stays one when changed in place (its kind says only that:
    # `CLASSES[t]` indexes a Python list); only containers of tensors need the walk.
    containers = {n for n in kinds if isinstance(single[n], (ast.List, ast.Dict, ast.Set)) and kinds[n] != "scalar"}
    if containers:
        for node in ast.walk(tree):
            _mutation(node, containers, kinds)
    info.global_kinds = kinds
    functions = [*info.functions.values(), *(m for c in info.classes.values() for m in c.methods.values())]
    for store in [*module_stores, *(s for f in functions for s in f.attr_stores)]:
        receiver, _, attr = store.rpartition(".")
        if receiver in info.imports:  # `consts.MASK = ...` re-binds another module's global
            info.foreign_stores.add(f"{info.imports[receiver]}.{attr}")


def _bindings(body: list[ast.stmt], counts: Counter[str], single: dict[str, ast.expr], top: bool,
              stores: list[str] | None = None) -> None:
    """Count every module-level binding of each name; `single` keeps the value of plain
    assignments made at the top level (not under a loop) for the names assigned so; `stores`
    collects attribute targets (`consts.MASK`), dotted."""
    for stmt in body:
        if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and stores is not None:
            for target in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]):
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                    stores.append(f"{target.value.id}.{target.attr}")
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                for name in _names(target):
                    counts[name] += 1
                if isinstance(target, ast.Name) and top and stmt.value is not None:
                    single[target.id] = stmt.value
        elif isinstance(stmt, (ast.AugAssign, ast.Delete)):
            for target in (stmt.targets if isinstance(stmt, ast.Delete) else [stmt.target]):
                for name in _names(target):
                    counts[name] += 2  # a re-binding whatever came before
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            for alias in stmt.names:
                counts[(alias.asname or alias.name).split(".")[0]] += 1
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            counts[stmt.name] += 1
        elif isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
            if not isinstance(stmt, ast.While):
                for name in _names(stmt.target):
                    counts[name] += 2
            _bindings(stmt.body + stmt.orelse, counts, single, False, stores)
            for name in _assigned_in(stmt.body):
                counts[name] += 2  # bound at every step
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                if item.optional_vars is not None:
                    for name in _names(item.optional_vars):
                        counts[name] += 1
            _bindings(stmt.body, counts, single, top, stores)
        elif isinstance(stmt, ast.If):
            _bindings(stmt.body, counts, single, False, stores)
            _bindings(stmt.orelse, counts, single, False, stores)
        elif isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
            for block in (stmt.body, stmt.orelse, stmt.finalbody, *(h.body for h in stmt.handlers)):  # type: ignore[attr-defined]
                _bindings(block, counts, single, False, stores)


def _assigned_in(body: list[ast.stmt]) -> set[str]:
    counts: Counter[str] = Counter()
    _bindings(body, counts, {}, top=False)
    return set(counts)


def _names(target: ast.AST) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for el in target.elts for n in _names(el)]
    if isinstance(target, ast.Starred):
        return _names(target.value)
    return []


def _value_kind(info: ModuleInfo, value: ast.expr, known: dict[str, str]) -> str | None:
    """The kind (a tensors.T value) of a global's value when certain, else None."""
    from breakscan.static.index import TENSOR_CONVERSIONS, ast_dotted
    from breakscan.static.tensors import TORCH_FACTORIES

    if isinstance(value, ast.Constant) or (isinstance(value, ast.UnaryOp) and isinstance(value.operand, ast.Constant)):
        return "scalar"
    if isinstance(value, ast.Name):
        return known.get(value.id)
    if isinstance(value, ast.Call):
        func = value.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call):  # torch.ones(3).bool()
            inner = _value_kind(info, func.value, known)
            if inner in ("tensor", "bool-tensor"):
                return "bool-tensor" if func.attr in _BOOL else ("tensor" if func.attr in TENSOR_CONVERSIONS else None)
            return None
        qual = info.qualify(ast_dotted(func) or "")
        if qual in TORCH_FACTORIES or qual in _PARAMETERS:
            return "tensor"
        return None
    if isinstance(value, ast.BinOp):
        sides = {_value_kind(info, value.left, known), _value_kind(info, value.right, known)}
        if sides & {"tensor", "bool-tensor"} and sides <= {"tensor", "bool-tensor", "scalar"}:
            return "tensor"
        return "scalar" if sides == {"scalar"} else None
    if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
        elements = {_value_kind(info, e, known) for e in value.elts}
        if elements and elements <= {"tensor", "bool-tensor"} and not isinstance(value, ast.Set):
            return "tensor-seq"
        return "scalar" if elements <= {"scalar"} else None
    if isinstance(value, ast.Dict):
        if any(k is None for k in value.keys):
            return None  # `{**other}`
        values = {_value_kind(info, v, known) for v in value.values}
        if values and values <= {"tensor", "bool-tensor"}:
            return "tensor-map"
        return "scalar" if values <= {"scalar"} else None
    return None


def _mutation(node: ast.AST, containers: set[str], kinds: dict[str, str]) -> None:
    """Drop a container global that `node` changes in place (`TABLE.append(x)`, `CACHE[k] = v`)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and isinstance(node.func.value, ast.Name) and node.func.value.id in containers \
            and node.func.attr in _IN_PLACE_CONTAINER:
        kinds.pop(node.func.value.id, None)
    elif isinstance(node, ast.Subscript) and not isinstance(node.ctx, ast.Load) \
            and isinstance(node.value, ast.Name) and node.value.id in containers:
        kinds.pop(node.value.id, None)


# The kinds another module's global takes where it is imported. Python values stay in their own
# module: constants change often, and each kind that crosses files is part of every file's cache key.
SHARED_KINDS = ("tensor", "bool-tensor", "tensor-seq", "tensor-map")


def global_kind(index: ProjectIndex, qualname: str, home: str, _depth: int = 0) -> T | None:
    """The kind of the module global `qualname` (`pkg.consts.MASK`, through re-exports) read in
    module `home` (a dotted name), or None when it is not a global whose kind is certain (see
    the module docstring); from another module, only the SHARED_KINDS."""
    from breakscan.static.tensors import T

    module, _, name = qualname.rpartition(".")
    info = index.modules.get(module)
    if info is None or _depth > 5 or index.is_stored_from_outside(qualname):
        return None
    kind = info.global_kinds.get(name)
    if kind is not None:
        return T(kind) if module == home or kind in SHARED_KINDS else None
    if module == home and name in info.global_instances and index.is_module_class(info.global_instances[name]):
        return T.MODULE  # `model = Net()` read in its own module: calling it runs Net.forward
    target = info.imports.get(name)
    return global_kind(index, target, home, _depth + 1) if target and target != qualname else None


def shared_kinds(info: ModuleInfo) -> tuple[tuple[str, str], ...]:
    """The globals of `info` other modules may take a kind from (for the cache key of every file)."""
    return tuple(sorted((n, k) for n, k in info.global_kinds.items() if k in SHARED_KINDS))
