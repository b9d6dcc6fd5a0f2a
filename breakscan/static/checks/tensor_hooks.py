"""Side effects on outer state inside a gradient hook registered on a tensor of the graph (BRK244).

Dynamo traces `t.register_hook(fn)` on a tensor computed in the graph by tracing `fn` as a
higher-order operator body, which may not mutate anything from outside its scope ("HOP: Unsafe
side effect", GB0067): `grads.append(g)`, `store["g"] = g`, `box.g = g`. The graph breaks at the
mutation (measured on 2.13 and 2.15); a pure hook (`lambda g: g * 2`) is traced, and a hook on an
input of the graph (a leaf passed in) is registered without tracing it.
"""

from __future__ import annotations

import libcst as cst

from breakscan.static.checks.binding import all_params
from breakscan.static.walk import iter_nodes

# Methods that mutate their receiver in place (lists, dicts, sets, deques).
MUTATING_METHODS = {"append", "extend", "insert", "update", "add", "setdefault", "pop", "popitem", "remove",
                    "clear", "discard", "appendleft", "extendleft"}


def outer_mutations(fn: cst.Lambda | cst.FunctionDef) -> list[cst.CSTNode]:
    """Nodes of `fn`'s body that mutate a value bound outside `fn`: a mutating method called on a
    name that is not a parameter or local of `fn`, or an item / attribute assignment whose base is
    one."""
    stars = (fn.params.star_arg, fn.params.star_kwarg)
    params = {p.name.value for p in [*all_params(fn), *(s for s in stars if isinstance(s, cst.Param))]}
    body: list[cst.CSTNode] = [fn.body] if isinstance(fn, cst.Lambda) else list(fn.body.body)
    local = set(params)
    if isinstance(fn, cst.FunctionDef):
        for assign in _nodes(body, (cst.Assign, cst.AnnAssign, cst.For)):
            targets = [t.target for t in assign.targets] if isinstance(assign, cst.Assign) else [assign.target]
            local.update(t.value for t in targets if isinstance(t, cst.Name))
    found: list[cst.CSTNode] = []
    for node in _nodes(body, (cst.Call, cst.Assign, cst.AugAssign)):
        if isinstance(node, cst.Call):
            func = node.func
            if (isinstance(func, cst.Attribute) and func.attr.value in MUTATING_METHODS
                    and _outer_root(func.value, local)):
                found.append(node)
            continue
        targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
        for target in targets:
            if isinstance(target, (cst.Subscript, cst.Attribute)) and _outer_root(target.value, local):
                found.append(target)
    return found


def _nodes(body: list[cst.CSTNode], kinds: tuple[type, ...]) -> list[cst.CSTNode]:
    return [node for item in body for node in iter_nodes(item, kinds)]


def _outer_root(expr: cst.BaseExpression, local: set[str]) -> bool:
    """Whether the base name of `a.b[c]...` is bound outside the hook."""
    while isinstance(expr, (cst.Attribute, cst.Subscript)):
        expr = expr.value
    return isinstance(expr, cst.Name) and expr.value not in local
