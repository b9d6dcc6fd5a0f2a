"""Which index expressions are 1-dim or 0-dim integer tensors, read from the code alone (BRK260).

Indexing a tensor with a 0-dim integer tensor (`x[i]`, `out[i] = v`) makes PyTorch read its value
with `aten._local_scalar_dense`, which Dynamo does not capture in default mode (GB0033, measured
on 2.13 and 2.15); a 1-dim index tensor is traced. The inference does not track ranks, so only
values whose rank the code itself fixes are recognised: reductions without a dimension, an
integer-literal index into a 1-dim tensor (a local, or an attribute every store of the class
makes 1-dim: `self.timesteps = torch.tensor([1008, 512])`), and the loop variable of a `for` over
a 1-dim tensor.
Anything else is of unknown rank and not matched (precision first).
"""

from __future__ import annotations

from typing import Protocol

import libcst as cst

from breakscan.static.syntax import dotted_name

# Reductions that, called without a dimension, give a 0-dim integer tensor (an index).
ZERO_DIM_REDUCTIONS = {"argmax", "argmin"}

# torch functions whose result is 1-dim whatever their tensor argument's rank.
ONE_DIM_FACTORIES = {"torch.arange", "torch.randperm", "torch.bincount", "torch.linspace", "torch.logspace"}
FLATTENING = {"torch.flatten", "torch.ravel"}
# Factories whose first argument is the size: 1-dim when it is one int (`torch.rand(6)`, `(n,)`).
SIZED_FACTORIES = {"torch.rand", "torch.randn", "torch.zeros", "torch.ones", "torch.empty", "torch.full"}
LITERAL_TENSORS = {"torch.tensor", "torch.as_tensor", "torch.LongTensor", "torch.IntTensor"}

# Methods that keep a 1-dim tensor 1-dim.
RANK_KEEPING = {"argsort", "flip", "clone", "long", "int", "to", "cpu", "cuda", "detach", "contiguous"}

# `nonzero(as_tuple=True)` / one-argument `torch.where`: a tuple of 1-dim index tensors.
INDEX_TUPLES = {"torch.nonzero", "torch.where"}

_DEPTH = 6


class RankContext(Protocol):
    """What the rank reading needs from the walk: the tensor inference and the function's bindings."""

    def is_tensor(self, expr: cst.BaseExpression) -> bool: ...

    def qualify(self, name: str) -> str: ...

    def binding(self, name: str) -> cst.BaseExpression | None:
        """The value of `name = value` when that is the only store to `name` in the function."""

    def loop_source(self, name: str) -> cst.BaseExpression | None:
        """The iterable of `for name in iterable` when that is the only store to `name`."""

    def attribute_stores(self, attr: str) -> list[cst.BaseExpression] | None:
        """The values the methods of the walked function's class store in `self.<attr>`, or None
        when unknown (no class, no store seen)."""

    def passed(self, name: str) -> list[tuple[cst.BaseExpression, RankContext]] | None:
        """When `name` is a parameter of the walked function that its body never binds again: the
        arguments every call of the function passes for it (each call seen), each with a context
        for its caller, else None."""

    def stores(self, name: str) -> list[cst.BaseExpression] | None:
        """Every value assigned to the local `name` when it is assigned more than once and only by
        plain `name = value` statements (not a parameter, no loop or augmented store), else None."""


def is_zero_dim(expr: cst.BaseExpression, ctx: RankContext, depth: int = 0) -> bool:
    """Whether `expr` is a 0-dim integer tensor: `t.argmax()` / `torch.argmin(t)` without a
    dimension, `v[k]` with `k` an integer literal and `v` 1-dim (`one_dim`), or a name bound once
    to one of those or looping once over a 1-dim tensor."""
    if depth > _DEPTH:
        return False
    if isinstance(expr, cst.Name):
        value = ctx.binding(expr.value)
        if value is not None:
            return is_zero_dim(value, ctx, depth + 1)
        source = ctx.loop_source(expr.value)
        return source is not None and one_dim(source, ctx, depth + 1)
    if isinstance(expr, cst.Subscript):
        return (len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index)
                and _int_literal(expr.slice[0].slice.value) and one_dim(expr.value, ctx, depth + 1))
    if not isinstance(expr, cst.Call) or _has_keyword(expr, "dim"):
        return False
    func = expr.func
    positional = [a for a in expr.args if a.keyword is None]
    if isinstance(func, cst.Attribute) and func.attr.value in ZERO_DIM_REDUCTIONS:
        qual = ctx.qualify(dotted_name(func) or "")
        if qual in ("torch.argmax", "torch.argmin"):
            return len(positional) == 1 and not positional[0].star and ctx.is_tensor(positional[0].value)
        return not positional and ctx.is_tensor(func.value)
    return False


def one_dim(expr: cst.BaseExpression, ctx: RankContext, depth: int = 0,
            assumed: frozenset[str] = frozenset()) -> bool:
    """Whether `expr` is a 1-dim tensor by construction: `torch.arange` / `randperm` / `bincount`,
    `torch.tensor([...])` of a flat display, `t.flatten()`, `t.view(-1)`, `t.unique()`, an element
    of `nonzero(as_tuple=True)` or of one-argument `torch.where`, a slice or rank-keeping method
    (`argsort`, `long`, `to`...) of a 1-dim tensor, or a name bound once to one of those."""
    if depth > _DEPTH:
        return False
    if isinstance(expr, cst.Name):
        if expr.value in assumed:
            return True  # `order = order[1:][keep]`: 1-dim if `order` was, as every other store says
        value = ctx.binding(expr.value)
        if value is not None:
            return one_dim(value, ctx, depth + 1, assumed)
        values = ctx.stores(expr.value)
        if values:  # `order = scores.argsort()` ... `order = order[1:][ious > thr]`
            return all(one_dim(v, ctx, depth + 1, assumed | {expr.value}) for v in values)
        # a parameter every call gives a 1-dim tensor (`f(x, torch.tensor([0, 3]))`, or a
        # parameter of the caller that its own calls give one)
        passed = ctx.passed(expr.value)
        return bool(passed) and all(one_dim(v, caller, depth + 1) for v, caller in passed)
    if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self":
        # `self.timesteps`: 1-dim when every store of the class makes it so (`torch.tensor([1008, 512])`)
        stores = ctx.attribute_stores(expr.attr.value)
        return bool(stores) and all(one_dim(v, _Unbound(ctx), depth + 1) for v in stores)
    if isinstance(expr, cst.Subscript):
        if len(expr.slice) != 1:
            return False
        part = expr.slice[0].slice
        if isinstance(part, cst.Slice):
            return one_dim(expr.value, ctx, depth + 1, assumed)
        if isinstance(part.value, cst.Comparison):
            # `order[ious > thr]`: a mask keeps 1-dim (a comparison of Python values as an index,
            # `x[n > 0]`, would add a dimension; code does not index that way)
            return one_dim(expr.value, ctx, depth + 1, assumed)
        return _int_literal(part.value) and _index_tuple(expr.value, ctx)
    if not isinstance(expr, cst.Call):
        return False
    func = expr.func
    positional = [a.value for a in expr.args if a.keyword is None and not a.star]
    name = dotted_name(func)
    qual = ctx.qualify(name) if name is not None else ""
    if qual in ONE_DIM_FACTORIES:
        return True
    if qual in SIZED_FACTORIES:  # `torch.rand(6)`, `torch.zeros((n,))`: one size
        return len(expr.args) >= 1 and expr.args[0].keyword is None and _one_size(expr.args[0].value) \
            and (len(positional) == 1 or qual == "torch.full")
    if qual in FLATTENING:
        return len(expr.args) == 1 and len(positional) == 1
    if qual in LITERAL_TENSORS:
        return bool(positional) and _flat_display(positional[0])
    if qual == "torch.unique":
        return _plain_unique(expr)
    if not isinstance(func, cst.Attribute) or not ctx.is_tensor(func.value):
        return False
    meth = func.attr.value
    if meth in ("flatten", "ravel"):
        return not expr.args
    if meth in ("view", "reshape"):
        return len(expr.args) == 1 and len(positional) == 1 and _minus_one(positional[0])
    if meth == "unique":
        return _plain_unique(expr)
    if meth in RANK_KEEPING:
        return one_dim(func.value, ctx, depth + 1, assumed)
    return False


class _Unbound:
    """A RankContext for a value stored in another method: its locals and loops are not the walked
    function's (no bindings), and the tensor inference is not asked of them (a tensor is a torch
    call or a method chain on one)."""

    def __init__(self, ctx: RankContext) -> None:
        self._ctx = ctx

    def is_tensor(self, expr: cst.BaseExpression) -> bool:
        """A call of a torch function, or a method chain on one (`torch.linspace(...).long()`)."""
        while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and isinstance(expr.func.value, cst.Call):
            expr = expr.func.value
        name = dotted_name(expr.func) if isinstance(expr, cst.Call) else None
        return name is not None and self._ctx.qualify(name).startswith("torch.")

    def qualify(self, name: str) -> str:
        return self._ctx.qualify(name)

    def binding(self, name: str) -> cst.BaseExpression | None:
        return None

    def loop_source(self, name: str) -> cst.BaseExpression | None:
        return None

    def attribute_stores(self, attr: str) -> list[cst.BaseExpression] | None:
        return None

    def passed(self, name: str) -> list[tuple[cst.BaseExpression, RankContext]] | None:
        return None

    def stores(self, name: str) -> list[cst.BaseExpression] | None:
        return None


def _index_tuple(expr: cst.BaseExpression, ctx: RankContext) -> bool:
    """`torch.nonzero(t, as_tuple=True)`, `t.nonzero(as_tuple=True)` or `torch.where(cond)`."""
    if not isinstance(expr, cst.Call):
        return False
    name = dotted_name(expr.func)
    qual = ctx.qualify(name) if name is not None else ""
    if qual == "torch.where":
        return len(expr.args) == 1 and expr.args[0].keyword is None and not expr.args[0].star
    as_tuple = _keyword_true(expr, "as_tuple")
    if qual == "torch.nonzero":
        return as_tuple
    return (isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "nonzero" and as_tuple
            and ctx.is_tensor(expr.func.value))


def _plain_unique(call: cst.Call) -> bool:
    """`unique` without `dim` and without `return_inverse` / `return_counts`: one 1-dim tensor."""
    return not any(a.keyword is not None and a.keyword.value in ("dim", "return_inverse", "return_counts")
                   for a in call.args) and len([a for a in call.args if a.keyword is None]) <= 1


def _flat_display(expr: cst.BaseExpression) -> bool:
    return (isinstance(expr, (cst.List, cst.Tuple)) and bool(expr.elements)
            and not any(isinstance(e, cst.StarredElement) or isinstance(e.value, (cst.List, cst.Tuple))
                        for e in expr.elements))


def _one_size(expr: cst.BaseExpression) -> bool:
    """An int literal, or a one-element tuple or list (`(n,)`, `[6]`)."""
    if isinstance(expr, (cst.Tuple, cst.List)):
        return len(expr.elements) == 1 and not isinstance(expr.elements[0], cst.StarredElement)
    return isinstance(expr, cst.Integer)


def _int_literal(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        expr = expr.expression
    return isinstance(expr, cst.Integer)


def _minus_one(expr: cst.BaseExpression) -> bool:
    return (isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus)
            and isinstance(expr.expression, cst.Integer) and expr.expression.value == "1")


def _has_keyword(call: cst.Call, name: str) -> bool:
    return any(a.keyword is not None and a.keyword.value == name for a in call.args)


def _keyword_true(call: cst.Call, name: str) -> bool:
    return any(a.keyword is not None and a.keyword.value == name and isinstance(a.value, cst.Name)
               and a.value.value == "True" for a in call.args)

