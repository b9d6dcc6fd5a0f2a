"""Attributes of NumPy arrays that Dynamo does not trace (BRK270).

Dynamo traces NumPy arrays as tensors (`torch._numpy`) but stops at `ndarray.dtype`, `.flags` and
`.base` ("Unsupported ndarray attribute access", GB0157; measured on 2.13 and 2.15). The inference
gives arrays the tensor kind, so an array is told apart here by how the code makes it: `t.numpy()`,
a NumPy array function, a local bound once to one of those, or an `isinstance(v, np.ndarray)` test
the read is guarded by.
"""

from __future__ import annotations

import libcst as cst

from breakscan.static.checks.base import CheckBase
from breakscan.static.checks.call_sites import stores_in
from breakscan.static.syntax import dotted_name
from breakscan.static.tensors import NUMPY_ARRAY_FUNCS, TENSORISH
from breakscan.static.walk import children, iter_nodes

CHECK = "ndarray-untraced-attribute"
UNTRACED_ATTRS = frozenset({"dtype", "flags", "base"})
_NESTED = (cst.FunctionDef, cst.Lambda, cst.ClassDef)


class ArrayChecks(CheckBase):
    """`.dtype`, `.flags`, `.base` of a NumPy array in a region (uses OperatorChecks._single_binding)."""

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value not in UNTRACED_ATTRS or self.region is None or self.env is None:
            return
        value = node.value
        if self._makes_array(value) or (
                isinstance(value, cst.Name) and (
                    self._makes_array(self._single_binding(value.value)) or id(node) in self._guarded_reads())):
            self._emit_check(CHECK, node)

    def _makes_array(self, value: cst.BaseExpression | None) -> bool:
        """`<tensor>.numpy()` or a call of a NumPy array function (tensors.NUMPY_ARRAY_FUNCS)."""
        if not isinstance(value, cst.Call):
            return False
        func = value.func
        if isinstance(func, cst.Attribute) and func.attr.value == "numpy" and not value.args:
            return self.env.kind(func.value) in TENSORISH
        name = dotted_name(func)
        if name is None or self._is_shadowed(name):
            return False
        qual = self.info.qualify(name)
        return qual.startswith("numpy.") and qual[len("numpy."):] in NUMPY_ARRAY_FUNCS

    def _guarded_reads(self) -> set[int]:
        """Ids of the untraced-attribute reads of the function being walked that an
        `isinstance(v, np.ndarray)` test guards: in the `if` body (up to the statement that binds
        `v` again) or on the right of the test in an `and`. Once per def; nothing to find in a
        module whose source never says `ndarray`."""
        fn = self.env.function if self.env is not None else None
        if fn is None or "ndarray" not in (self.source or ""):
            return set()
        cache = self.__dict__.setdefault("_guarded_array_reads", {})
        if id(fn) not in cache:
            found: set[int] = set()
            for test in iter_nodes(fn.body, cst.If):
                for name in self._array_tests(test.test):
                    found |= _reads_until_rebound(test.body.body, name)
            for op in iter_nodes(fn.body, cst.BooleanOperation):
                if isinstance(op.operator, cst.And):
                    for name in self._array_tests(op.left):
                        found |= {id(a) for a in _untraced_reads(op.right, name)}
            cache[id(fn)] = found
        return cache[id(fn)]

    def _array_tests(self, test: cst.BaseExpression) -> list[str]:
        """The names `test` shows are NumPy arrays: `isinstance(v, np.ndarray)`, alone or as an
        operand of an `and` chain."""
        if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
            return self._array_tests(test.left) + self._array_tests(test.right)
        if not (isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value == "isinstance"
                and len(test.args) == 2 and isinstance(test.args[0].value, cst.Name)):
            return []
        cls = dotted_name(test.args[1].value)
        return [test.args[0].value.value] if cls and self.info.qualify(cls) == "numpy.ndarray" else []


def _untraced_reads(tree: cst.CSTNode, name: str) -> list[cst.Attribute]:
    """`name.dtype` / `.flags` / `.base` reads in `tree`, not in nested defs, lambdas or classes."""
    out = []
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, _NESTED):
            continue
        if isinstance(node, cst.Attribute) and node.attr.value in UNTRACED_ATTRS \
                and isinstance(node.value, cst.Name) and node.value.value == name:
            out.append(node)
        stack.extend(children(node))
    return out


def _reads_until_rebound(body: tuple[cst.BaseStatement, ...] | list, name: str) -> set[int]:
    """Ids of the reads of `_untraced_reads` in the statements `body`, up to and including the
    first statement that binds `name` again (its right-hand side still reads the array)."""
    found: set[int] = set()
    for stmt in body:
        found |= {id(a) for a in _untraced_reads(stmt, name)}
        if any(isinstance(t, cst.Name) and t.value == name for t in stores_in(stmt)):
            break
    return found


# Which checks each visit_ method runs (errors.rules_at_risk).
METHOD_CHECKS: dict[str, tuple[str, ...]] = {"visit_Attribute": (CHECK,)}
