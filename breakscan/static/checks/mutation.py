"""Checks on state a compiled function changes or reads: module counters, buffers reassigned,
`requires_grad` set, globals rebound elsewhere."""

from __future__ import annotations

import libcst as cst

from breakscan.static.checks.base import CheckBase


class MutationChecks(CheckBase):
    """Assignment targets and reads of rebound globals."""

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._note_target(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        # `x[m] -= 1` loads `x[m]` before storing it back: a boolean-mask load, unlike `x[m] = v`
        # (measured on 2.13: GB0036 at the augmented assignment), so its subscript is not a store.
        if not isinstance(node.target, cst.Subscript):
            self._note_target(node.target)
        if self.region is not None and self._is_numeric_self_attr(node.target):
            self._emit_check("module-counter", node)

    def visit_Assign(self, node: cst.Assign) -> None:
        if self.region is None or len(node.targets) != 1:
            return
        target = node.targets[0].target
        if (self._is_numeric_self_attr(target) and isinstance(node.value, cst.BinaryOperation)
                and self._is_numeric_self_attr(node.value.left)
                and node.value.left.attr.value == target.attr.value):
            self._emit_check("module-counter", node)

    def _is_numeric_self_attr(self, target: cst.BaseExpression) -> bool:
        if not (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)
                and target.value.value == "self" and self.region is not None and self.region.cls):
            return False
        return target.attr.value in self.index.numeric_attrs(self.region.cls.qualname)

    def _note_target(self, target: cst.BaseExpression) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):  # `out[m], log[m] = ...`: each element is stored to
            for element in target.elements:
                self._note_target(element.value)
        elif isinstance(target, cst.Subscript):
            self._stores.add(id(target))
        elif (self.region is not None and self.region.cls is not None and isinstance(target, cst.Attribute)
              and isinstance(target.value, cst.Name) and target.value.value == "self"
              and target.attr.value in self.index.inherited(self.region.cls.qualname, "buffer_attrs")):
            self._emit_check("buffer-reassign", target)
        elif (self.region is not None and isinstance(target, cst.Attribute)
              and target.attr.value == "requires_grad"):
            self._emit_check("requires-grad-set", target)

    def visit_Name(self, node: cst.Name) -> None:
        if (self.region is not None and node.value in self.info.rebound_globals
                and self.env is not None and node.value not in self.env.names):
            self._emit_check("global-mutable-read", node)


# Which checks each visit_ method runs (errors.rules_at_risk).
METHOD_CHECKS: dict[str, tuple[str, ...]] = {
    "visit_AssignTarget": ("requires-grad-set", "buffer-reassign"),
    "visit_AugAssign": ("module-counter", "requires-grad-set", "buffer-reassign"),
    "visit_Assign": ("module-counter",), "visit_Name": ("global-mutable-read",),
}
