"""Checks on operators: comparisons (lists holding a tensor, `data_ptr()`, `in` a torch function's
`__kwdefaults__`, `in` a tensor), indexing by a boolean mask, a 0-dim tensor or (a Python sequence) by
any tensor, slicing with a tensor bound, `%` formatting of a tensor, and scalar parameters of a compiled root meeting tensors."""

from __future__ import annotations

from collections import Counter

import libcst as cst

from breakscan.static.checks.base import CheckBase
from breakscan.static.checks.binding import all_params
from breakscan.static.checks.index_ranks import RankContext, _Unbound, is_zero_dim
from breakscan.static.syntax import dotted_name
from breakscan.static.tensors import TENSORISH, T
from breakscan.static.walk import iter_nodes

# Kinds of values that take only Python ints as indices (lists, tuples, strings; lists of tensors;
# `nn.ModuleList`/`nn.Sequential`).
PYTHON_SEQUENCE_KINDS = (T.SCALAR, T.TENSOR_SEQ, T.SHAPE, T.MODULE)


# Attributes of a torch function that Dynamo hands back as opaque values (no `in` test on them).
INTROSPECTED_ATTRS = {"__kwdefaults__", "__doc__"}


class OperatorChecks(CheckBase):
    """Comparisons, subscripts and binary operations."""

    def _data_ptr_operands(self, operands: list[cst.BaseExpression]) -> None:
        for operand in operands:
            if self._is_data_ptr(operand):
                self._emit_check("data-ptr-use", operand)

    def _is_data_ptr(self, expr: cst.BaseExpression) -> bool:
        """`x.data_ptr()` on a tensor (or a value of unknown type), or a local bound only to one
        (`key = x.data_ptr()`): Dynamo breaks where the value is compared or computed with, not
        where it is read (measured on 2.13 and 2.15)."""
        if self.env is None:
            return False
        if isinstance(expr, cst.Name) and self._mentions_data_ptr:
            expr = self._single_binding(expr.value) or expr
        return (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute)
                and expr.func.attr.value == "data_ptr" and not expr.args
                and self.env.kind(expr.func.value) in (*TENSORISH, T.UNKNOWN))

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if self.region is not None:
            self._data_ptr_operands([node.left, *(c.comparator for c in node.comparisons)])
            self._sequence_compare(node)
            self._torch_function_introspection(node)
            self._tensor_membership(node)
        if self.region is not None and self._scalar_params and self._scalar_params[-1]:
            operands = [node.left] + [c.comparator for c in node.comparisons]
            # `step == 0` or `step % 5 == 0`: Dynamo guards the value (or the expression) of the number
            used = {n.value for o in operands for n in iter_nodes(o, cst.Name)} & self._scalar_params[-1]
            if used:
                self._emit_check("scalar-argument", node)
                self._scalar_params[-1] -= used  # Dynamo guards a number once: its first use says it

    def _tensor_membership(self, node: cst.Comparison) -> None:
        """`0 in attention_mask` with a tensor on the right (BRK259): `Tensor.__contains__` reads
        its answer with `.item()`, GB0124 (measured on 2.13 and 2.15). Not a container that is a
        tensor only by the root parameters' convention, never used as one (`_only_guessed`), nor
        one a string is looked up in (`"x" in tags`: no tensor holds strings)."""
        if self.env is None:
            return
        left = node.left
        for comparison in node.comparisons:
            container = comparison.comparator
            if (isinstance(comparison.operator, (cst.In, cst.NotIn)) and self.env.is_tensor(container)
                    and not isinstance(left, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString))
                    and not self._only_guessed(container)):
                self._emit_check("tensor-membership", node)
                return
            left = container

    def _torch_function_introspection(self, node: cst.Comparison) -> None:
        """`"indexing" in torch.meshgrid.__kwdefaults__` (BRK241): Dynamo's torch-function variable
        gives these attributes as opaque values without `sq_contains` (GB4411, checked on 2.13)."""
        for comparison in node.comparisons:
            target = comparison.comparator
            if (isinstance(comparison.operator, (cst.In, cst.NotIn)) and isinstance(target, cst.Attribute)
                    and target.attr.value in INTROSPECTED_ATTRS):
                name = dotted_name(target.value)
                if (name is not None and not self._is_shadowed(name) and name.rsplit(".", 1)[-1][:1].islower()
                        and self.info.qualify(name).startswith("torch.")):
                    self._emit_check("torch-function-introspection", node)
                    return

    def _sequence_compare(self, node: cst.Comparison) -> None:
        """`list(x.size()) == [b, n, d]` with `n` a tensor (BRK109).

        Python compares lists and tuples element by element and needs each result's truth; a
        tensor element gives a tensor, which Dynamo cannot turn into a constant: it breaks the
        graph with GB6622 (`list_richcompare_nonconst`; checked on 2.13 for `==` and `!=`, lists,
        tuples and `torch.Size`, in asserts, `if` tests and assignments, graph input or not).
        """
        if self.env is None:
            return
        operands = [node.left, *(c.comparator for c in node.comparisons)]
        for i, comparison in enumerate(node.comparisons):
            if not isinstance(comparison.operator, (cst.Equal, cst.NotEqual)):
                continue
            a, b = operands[i], operands[i + 1]
            if (self._holds_tensor(a) and self._is_sequence(b)) or (self._holds_tensor(b) and self._is_sequence(a)):
                self._emit_check("tensor-sequence-compare", node)
                return

    def _display(self, expr: cst.BaseExpression) -> list[cst.BaseExpression] | None:
        """Elements of a list or tuple display, also inside `list(...)` / `tuple(...)`; else None."""
        if (isinstance(expr, cst.Call) and len(expr.args) == 1 and not expr.args[0].keyword
                and not expr.args[0].star and isinstance(expr.func, cst.Name)
                and expr.func.value in ("list", "tuple") and not self._is_shadowed(expr.func.value)):
            expr = expr.args[0].value
        if isinstance(expr, (cst.Tuple, cst.List)):
            return [e.value for e in expr.elements if not isinstance(e, cst.StarredElement)]
        return None

    def _holds_tensor(self, expr: cst.BaseExpression) -> bool:
        assert self.env is not None
        elements = self._display(expr)
        return elements is not None and any(self.env.is_tensor(e) for e in elements)

    def _is_sequence(self, expr: cst.BaseExpression) -> bool:
        """A list, tuple or `torch.Size`: a display, `list(...)`/`tuple(...)`, `x.shape`, `x.size()`."""
        assert self.env is not None
        if isinstance(expr, (cst.Tuple, cst.List)):
            return True
        if isinstance(expr, cst.Call):
            func = expr.func
            if isinstance(func, cst.Name) and func.value in ("list", "tuple") and not self._is_shadowed(func.value):
                return True
            if isinstance(func, cst.Attribute) and func.attr.value == "size" and not expr.args:
                return self.env.is_tensor(func.value)
            name = dotted_name(func)
            return name is not None and self.info.qualify(name) == "torch.Size"
        return (isinstance(expr, cst.Attribute) and expr.attr.value == "shape"
                and self.env.is_tensor(expr.value))
    def visit_Subscript(self, node: cst.Subscript) -> None:
        if self.region is None or self.env is None:
            return
        if id(node) in self._stores:  # `out[i] = v` reads a 0-dim `i` too; masks and slices store fine
            if self.env.is_tensor(node.value) and self._indexes_with_zero_dim(node):
                self._emit_check("zero-dim-tensor-index", node)
            return
        if self._tensor_slice_bound(node):
            self._emit_check("tensor-slice-bound", node)
            return
        if not self.env.is_tensor(node.value):
            if self.env.kind(node.value) in PYTHON_SEQUENCE_KINDS and any(
                    isinstance(e.slice, cst.Index) and self.env.is_tensor(e.slice.value)
                    and not self._only_guessed(e.slice.value) for e in node.slice):
                self._emit_check("sequence-tensor-index", node)  # `__index__` reads it with `.item()`
            elif self.env.kind(node.value) is T.UNKNOWN and self._mask_index(node):
                # a boolean mask only indexes a tensor (or an array Dynamo traces as one): a value of
                # unknown type indexed by one is a tensor (`pred = model(x).argmax(1)`, `pred[valid]`)
                self._emit_check("mask-index", node)
            return
        if self._indexes_with_zero_dim(node):
            self._emit_check("zero-dim-tensor-index", node)
            return
        for element in node.slice:
            if not isinstance(element.slice, cst.Index):
                continue
            index = element.slice.value
            if self.env.kind(index) is T.BOOL_TENSOR or (
                    isinstance(index, cst.Name) and self.bool_at_call_sites(index.value)):
                self._emit_check("mask-index", node)
                return

    def _mask_index(self, node: cst.Subscript) -> bool:
        """Whether an index of `node` is a boolean tensor that is not one only by the root
        parameters' convention (`_guessed_mask`)."""
        assert self.env is not None
        return any(isinstance(e.slice, cst.Index) and self.env.kind(e.slice.value) is T.BOOL_TENSOR
                   and not self._guessed_mask(e.slice.value) for e in node.slice)

    def _guessed_mask(self, mask: cst.BaseExpression, depth: int = 0) -> bool:
        """Whether `mask` is a tensor only by the root parameters' convention (`_only_guessed`),
        looking through a comparison (`scores > 0`: each tensor operand is such a parameter) and
        a local bound once to one (`keep = scores > 0`)."""
        assert self.env is not None
        if isinstance(mask, cst.Name) and depth < 3 and (value := self._single_binding(mask.value)) is not None:
            return self._guessed_mask(value, depth + 1)
        if isinstance(mask, cst.Comparison):
            sides = [side for side in (mask.left, *(c.comparator for c in mask.comparisons))
                     if self.env.kind(side) in TENSORISH]
            return bool(sides) and all(self._only_guessed(side) for side in sides)
        return self._only_guessed(mask)

    def _indexes_with_zero_dim(self, node: cst.Subscript) -> bool:
        return any(isinstance(e.slice, cst.Index) and self._zero_dim_index(e.slice.value) for e in node.slice)

    def _zero_dim_index(self, index: cst.BaseExpression) -> bool:
        """Whether `index` is a 0-dim integer tensor computed in this graph (BRK260; the ranks
        the code fixes: index_ranks.is_zero_dim). A name bound by assignment counts only with no
        graph break predicted since (`_computes`): a resumed graph gets it as an input, and
        indexing with a 0-dim input is traced (measured on 2.13). A loop variable over a 1-dim
        tensor is selected in the graph at each iteration."""
        assert self.env is not None
        if isinstance(index, cst.Name):
            if self._single_binding(index.value) is not None:
                if self.env.kind(index) not in TENSORISH or not self._computes(index):
                    return False
            elif self._loop_source(index.value) is None:
                return False  # cheap test first: most indices are ints
        return is_zero_dim(index, _Ranks(self))

    def _single_binding(self, name: str) -> cst.BaseExpression | None:
        """The value of `name = value` when that is the only store to `name` in the function
        being walked (not a parameter); else None."""
        return self._bindings()[0].get(name)

    def _loop_source(self, name: str) -> cst.BaseExpression | None:
        """The iterable of `for name in iterable` when that is the only store to `name` in the
        function being walked (not a parameter); else None."""
        return self._bindings()[1].get(name)

    def _passed_arguments(self, name: str) -> list[tuple[cst.BaseExpression, RankContext]] | None:
        """What every call of the walked module-level function passes for its parameter `name`
        (index_ranks.RankContext.passed)."""
        fn = self.env.function if self.env is not None else None
        region = self.region
        if fn is None or region is None or region.cls is not None or region.function.name != fn.name.value:
            return None
        return self._passed_to(region.function.qualname, fn, name)

    def _passed_to(self, qualname: str, fn: cst.FunctionDef, name: str,
                   hops: int = 0) -> list[tuple[cst.BaseExpression, RankContext]] | None:
        """The arguments every call of this module's function `qualname` (def `fn`) passes for its
        parameter `name`, which the body never binds again (CallSiteInference.passed_arguments),
        each with a RankContext for its caller: a module-level def of this module
        (`_CallerRanks`: its own parameters followed up to two calls further), else none."""
        if name not in {p.name.value for p in all_params(fn)} \
                or any(isinstance(t, cst.Name) and t.value == name for t in self._stores_of(fn)):
            return None
        found = self.passed_arguments(qualname, name)
        if found is None:
            return None
        defs = {id(node): key[0] for key, node in self.functions.items() if "." not in key[0]}
        ranks = _Ranks(self)
        return [(value, _CallerRanks(self, caller, defs[id(caller)], hops + 1)
                 if caller is not None and id(caller) in defs and hops < 2 else _Unbound(ranks))
                for value, caller in found]

    def _plain_stores(self, name: str) -> list[cst.BaseExpression] | None:
        """Every value of `name = value` in the walked function when `name` is stored more than
        once and only that way (index_ranks.RankContext.stores)."""
        fn = self.env.function if self.env is not None else None
        return _plain_stores(fn, name, self._stores_of(fn)) if fn is not None else None

    def _attribute_stores(self, attr: str) -> list[cst.BaseExpression] | None:
        """The values of `self.<attr> = value` in the methods this module defines for the walked
        region's class (index_ranks.RankContext.attribute_stores, CheckBase._class_assignments);
        None without a class or a store, or when a store is not a plain assignment."""
        found, complete = self._class_assignments(attr)
        return [value for value, _, _ in found] if found and complete else None

    def _bindings(self) -> tuple[dict[str, cst.BaseExpression], dict[str, cst.BaseExpression]]:
        fn = self.env.function if self.env is not None else None
        return self._bindings_of(fn) if fn is not None else ({}, {})

    def _bindings_of(self, fn: cst.FunctionDef) -> tuple[dict[str, cst.BaseExpression], dict[str, cst.BaseExpression]]:
        """`fn`'s names stored exactly once (not parameters): {name: assigned value} and {name:
        iterable of its `for`}, once per def."""
        cache = self.__dict__.setdefault("_bindings_cache", {})
        if id(fn) not in cache:
            stores = Counter(t.value for t in self._stores_of(fn) if isinstance(t, cst.Name))
            params = {p.name.value for p in all_params(fn)}

            def once(target: cst.BaseExpression) -> bool:
                return isinstance(target, cst.Name) and stores[target.value] == 1 and target.value not in params

            cache[id(fn)] = (
                {a.targets[0].target.value: a.value for a in iter_nodes(fn.body, cst.Assign)
                 if len(a.targets) == 1 and once(a.targets[0].target)},
                {f.target.value: f.iter for f in iter_nodes(fn.body, cst.For) if once(f.target)})
        return cache[id(fn)]

    def _tensor_slice_bound(self, node: cst.Subscript) -> bool:
        """`x[:n]`, `x[k:]`, `seq[i:i + 2]` with a bound the inference says is a tensor (BRK258).

        A slice bound must be a Python int: Dynamo reads a tensor bound with `.item()` and breaks
        (GB0124; a bound that is a graph input makes the frame fall back), whether the sliced value
        is a tensor or a list (measured on 2.13 and 2.15). A bound that is a tensor only by the root
        parameters' convention, never used as one, is not matched (`_only_guessed`)."""
        assert self.env is not None
        for element in node.slice:
            if not isinstance(element.slice, cst.Slice):
                continue
            for bound in (element.slice.lower, element.slice.upper, element.slice.step):
                if bound is not None and self.env.reads_as_tensor(bound) and not self._only_guessed(bound):
                    return True
        return False

    def _math_constant(self, node: cst.BaseExpression) -> bool:
        """`math.pi`, `math.e`, `math.tau`, `math.inf`, or a `math` function's result
        (`math.radians(1.0)`): a Python float."""
        if isinstance(node, cst.Call):
            name = dotted_name(node.func)
            return name is not None and self.info.qualify(name).startswith("math.")
        name = dotted_name(node) if isinstance(node, cst.Attribute) else None
        return name is not None and self.info.qualify(name) in ("math.pi", "math.e", "math.tau", "math.inf")

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if self.region is not None:
            self._data_ptr_operands([node.left, node.right])
        if self.region is not None and self.env is not None:
            kinds = {T.SCALAR if self._math_constant(side) else self.env.kind(side) for side in (node.left, node.right)}
            if T.RANDOM in kinds and kinds <= {T.RANDOM, T.SCALAR, T.SHAPE}:
                self._emit_check("random-number-arithmetic", node)  # BRK264: `random.uniform(a, b) * 2.0`
        if self.region is not None and self.env is not None and self._scalar_params and self._scalar_params[-1]:
            for a, b in ((node.left, node.right), (node.right, node.left)):
                if isinstance(a, cst.Name) and a.value in self._scalar_params[-1] and self.env.is_tensor(b):
                    self._emit_check("scalar-argument", node)
                    self._scalar_params[-1].discard(a.value)
                    break
        if (self.region is not None and self.env is not None and isinstance(node.operator, cst.Modulo)
                and isinstance(node.left, (cst.SimpleString, cst.ConcatenatedString))
                and (self.env.is_tensor(node.right) or (
                    isinstance(node.right, cst.Tuple)
                    and any(self.env.is_tensor(e.value) for e in node.right.elements)))):
            self._emit_check("tensor-percent-format", node)


# Which checks each visit_ method runs (errors.rules_at_risk).
METHOD_CHECKS: dict[str, tuple[str, ...]] = {
    "visit_Comparison": ("scalar-argument", "tensor-sequence-compare", "data-ptr-use", "torch-function-introspection",
                         "tensor-membership"),
    "visit_Subscript": ("mask-index", "tensor-slice-bound", "zero-dim-tensor-index", "sequence-tensor-index"),
    "visit_BinaryOperation": ("scalar-argument", "tensor-percent-format", "data-ptr-use", "random-number-arithmetic"),
}


class _Ranks:
    """index_ranks.RankContext over an OperatorChecks walk."""

    def __init__(self, checks: OperatorChecks) -> None:
        self._checks = checks

    def is_tensor(self, expr: cst.BaseExpression) -> bool:
        env = self._checks.env
        return env is not None and env.is_tensor(expr)

    def qualify(self, name: str) -> str:
        return self._checks.info.qualify(name)

    def binding(self, name: str) -> cst.BaseExpression | None:
        return self._checks._single_binding(name)

    def loop_source(self, name: str) -> cst.BaseExpression | None:
        return self._checks._loop_source(name)

    def attribute_stores(self, attr: str) -> list[cst.BaseExpression] | None:
        return self._checks._attribute_stores(attr)

    def passed(self, name: str) -> list[tuple[cst.BaseExpression, RankContext]] | None:
        return self._checks._passed_arguments(name)

    def stores(self, name: str) -> list[cst.BaseExpression] | None:
        return self._checks._plain_stores(name)


class _CallerRanks(_Unbound):
    """index_ranks.RankContext for an argument in the module-level def that makes the call: its
    plain assignments and its own parameters' arguments are read, tensors are torch calls."""

    def __init__(self, checks: OperatorChecks, fn: cst.FunctionDef, qualname: str, hops: int) -> None:
        super().__init__(_Ranks(checks))
        self._checks, self._fn, self._qualname, self._hops = checks, fn, qualname, hops

    def binding(self, name: str) -> cst.BaseExpression | None:
        return self._checks._bindings_of(self._fn)[0].get(name)

    def stores(self, name: str) -> list[cst.BaseExpression] | None:
        return _plain_stores(self._fn, name, self._checks._stores_of(self._fn))

    def passed(self, name: str) -> list[tuple[cst.BaseExpression, RankContext]] | None:
        return self._checks._passed_to(self._qualname, self._fn, name, self._hops)


def _plain_stores(fn: cst.FunctionDef, name: str, targets: list[cst.BaseExpression]) -> list[cst.BaseExpression] | None:
    """The values of the `name = value` statements of `fn` when they are all its stores of `name`
    (a local, not a parameter) and there are more than one (one: `_bindings_of`); else None."""
    count = sum(1 for t in targets if isinstance(t, cst.Name) and t.value == name)
    if count < 2 or name in {p.name.value for p in all_params(fn)}:
        return None
    values = [a.value for a in iter_nodes(fn.body, cst.Assign)
              if len(a.targets) == 1 and isinstance(a.targets[0].target, cst.Name) and a.targets[0].target.value == name]
    return values if len(values) == count else None
