"""libcst helpers: dotted names and the Dynamo-known predicates (`is_compiling()`)."""

from __future__ import annotations

import re

import libcst as cst

from breakscan.static.index import NONE_UNDER_DYNAMO, ModuleInfo, predicate_value


def dotted_name(node: cst.BaseExpression | None) -> str | None:
    """`a.b.c` for a libcst Name/Attribute chain, else None."""
    parts: list[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Name):
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


def compiling_guard(info: ModuleInfo, test: cst.BaseExpression,
                    helpers: set[str] | frozenset[str] = frozenset()) -> bool | None:
    """True/False when `test` is known under Dynamo (`is_compiling()` and friends), else None.

    The libcst twin of `breakscan.static.index.compiling_guard` (which reads `ast`);
    `helpers` are qualified names of project functions that return such a predicate.
    """
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = compiling_guard(info, test.expression, helpers)
        return None if inner is None else not inner
    if isinstance(test, cst.Call) and not test.args:
        name = dotted_name(test.func)
        return None if name is None else predicate_value(info, name, helpers)
    if isinstance(test, cst.BooleanOperation):  # evaluated left to right, as the ast twin
        deciding = isinstance(test.operator, cst.Or)
        left = compiling_guard(info, test.left, helpers)
        if left is None or left is deciding:
            return left
        return compiling_guard(info, test.right, helpers)
    if (isinstance(test, cst.Comparison) and len(test.comparisons) == 1
            and isinstance(test.comparisons[0].operator, (cst.Is, cst.IsNot))
            and isinstance(test.comparisons[0].comparator, cst.Name) and test.comparisons[0].comparator.value == "None"
            and isinstance(test.left, cst.Call) and not test.left.args):
        name = dotted_name(test.left.func)
        if name is not None and info.qualify(name) in NONE_UNDER_DYNAMO:
            return isinstance(test.comparisons[0].operator, cst.Is)
    return None


def indexed_functions(module: cst.Module) -> dict[tuple[str, int], cst.FunctionDef]:
    """`def`s at module and class level by (qualname, occurrence), in the order the `ast`
    indexer (breakscan.static.index._Indexer.statements) registers them."""
    found: dict[tuple[str, int], cst.FunctionDef] = {}
    _indexed_statements(module.body, None, found, {})
    return found


def nested_function(functions: dict, qualname: str, occurrence: int) -> cst.FunctionDef | None:
    """The compiled def `qualname` nested in a def of `functions` (`Tests.test_item.fn`: the
    `occurrence`-th `def fn` directly inside `Tests.test_item`, in source order, as the index
    counts them), from `functions` (indexed_functions); deeper nesting is not looked up."""
    from breakscan.static.walk import iter_nodes

    outer, _, name = qualname.rpartition(".")
    found = []
    k = 0
    while (outer, k) in functions:
        parent = functions[(outer, k)]
        inner = {id(n) for d in iter_nodes(parent.body, cst.FunctionDef) for n in iter_nodes(d.body, cst.FunctionDef)}
        found += [d for d in iter_nodes(parent.body, cst.FunctionDef) if d.name.value == name and id(d) not in inner]
        k += 1
    return found[occurrence] if occurrence < len(found) else None


def _indexed_statements(body, cls: str | None, found: dict, seen: dict[str, int]) -> None:
    # Module level, not a closure: a recursive closure is a reference cycle that kept `found`,
    # every def's subtree, alive until the cyclic GC walked it (about a tenth of phase B's CPU).
    for stmt in body:
        if isinstance(stmt, cst.FunctionDef):
            qualname = f"{cls}.{stmt.name.value}" if cls else stmt.name.value
            k = seen.get(qualname, 0)
            seen[qualname] = k + 1
            found[(qualname, k)] = stmt
        elif isinstance(stmt, cst.ClassDef) and cls is None:
            _indexed_statements(_block(stmt.body), stmt.name.value, found, seen)
        elif isinstance(stmt, cst.If):
            _indexed_statements(_block(stmt.body), cls, found, seen)
            if stmt.orelse is not None:
                _indexed_statements(_block(stmt.orelse.body) if isinstance(stmt.orelse, cst.Else) else [stmt.orelse],
                                    cls, found, seen)
        elif isinstance(stmt, (cst.Try, cst.TryStar)):
            _indexed_statements(_block(stmt.body), cls, found, seen)
            if stmt.orelse is not None:
                _indexed_statements(_block(stmt.orelse.body), cls, found, seen)
            if stmt.finalbody is not None:
                _indexed_statements(_block(stmt.finalbody.body), cls, found, seen)
            for handler in stmt.handlers:
                _indexed_statements(_block(handler.body), cls, found, seen)


def _block(suite: cst.BaseSuite) -> list:
    return list(suite.body) if isinstance(suite, cst.IndentedBlock) else []


# `torch._dynamo.config.reorderable_logging_functions.add(print)` (or `.update({print, ...})`) at
# module level, as `breakscan --fix` writes it (breakscan.fix.rewrites.reorder_print).
REORDERABLE_PRINT = re.compile(
    r"^(?P<alias>\w+)\._dynamo\.config\.reorderable_logging_functions\."
    r"(?:add\(\s*print\s*\)|update\(\s*[{\[(][^)]*\bprint\b)", re.MULTILINE)
