"""Checks on state a compiled function changes or reads: module counters, buffers reassigned,
`requires_grad` set, `.data` swapped (for another dtype), globals rebound elsewhere."""

from __future__ import annotations

import libcst as cst

from breakscan.static.checks.base import CheckBase
from breakscan.static.syntax import dotted_name


# Tensor methods that may return the tensor itself (a no-op `.to()`/`.float()`/`.contiguous()`, an
# in-place `x.add_()`): assigned back to a buffer attribute, the value is still the `nn.Buffer`.
_MAY_RETURN_SELF = {"to", "type", "type_as", "contiguous", "cpu", "cuda", "float", "double", "half",
                    "bfloat16", "int", "long", "bool", "byte", "char", "short"}


# Conversions to a dtype other than float32 (the dtype of parameters and of most tensors): `.data =`
# one of them changes the dtype, which Dynamo does not trace (GB0220). `.float()` is left out: on a
# float32 tensor it is a no-op, traced.
_OTHER_DTYPE_METHODS = {"half", "bfloat16", "double", "int", "long", "bool", "byte", "char", "short"}
_OTHER_DTYPES = {"float16", "half", "bfloat16", "float64", "double", "int8", "int16", "int32", "int64", "int",
                 "long", "short", "uint8", "bool", "complex64", "complex128", "float8_e4m3fn", "float8_e5m2"}


class MutationChecks(CheckBase):
    """Assignment targets and reads of rebound globals."""

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._note_target(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        # `x[m] -= 1` loads `x[m]` before storing it back: a boolean-mask load, unlike `x[m] = v`
        # (measured on 2.13: GB0036 at the augmented assignment), so its subscript is not a store.
        if not isinstance(node.target, cst.Subscript):
            self._note_target(node.target)
        if self._is_buffer_attr(node.target):  # `self.b += x` is in place: the value is the buffer
            self._emit_check("buffer-reassign", node.target)
        if self.region is not None and self._is_numeric_self_attr(node.target):
            self._emit_check("module-counter", node)

    def visit_Assign(self, node: cst.Assign) -> None:
        if self.region is None:
            return
        for assign_target in node.targets:
            if self._is_buffer_attr(assign_target.target) and self._may_be_buffer(node.value):
                self._emit_check("buffer-reassign", assign_target.target)
        if len(node.targets) != 1:
            return
        target = node.targets[0].target
        if isinstance(target, cst.Attribute) and target.attr.value == "data" and self._to_other_dtype(node.value):
            self._emit_check("data-assign-dtype", target)  # GB0220
        if (self._is_numeric_self_attr(target) and isinstance(node.value, cst.BinaryOperation)
                and self._is_numeric_self_attr(node.value.left)
                and node.value.left.attr.value == target.attr.value):
            self._emit_check("module-counter", node)

    def _to_other_dtype(self, value: cst.BaseExpression) -> bool:
        """`t.half()`, `t.to(torch.bfloat16)`, `t.to(dtype=torch.float16)`, `t.type(torch.int64)`:
        a conversion to a dtype other than float32 (`_OTHER_DTYPES`, named through `torch.`)."""
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)):
            return False
        meth = value.func.attr.value
        if meth in _OTHER_DTYPE_METHODS:
            return not value.args
        if meth not in ("to", "type"):
            return False
        for arg in value.args:
            if arg.star or (arg.keyword is not None and arg.keyword.value != "dtype"):
                continue
            name = dotted_name(arg.value)
            qual = self.info.qualify(name) if name else ""
            if qual.startswith("torch.") and qual[len("torch."):] in _OTHER_DTYPES:
                return True
        return False

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
        elif (self.region is not None and isinstance(target, cst.Attribute)
              and target.attr.value == "requires_grad"):
            self._emit_check("requires-grad-set", target)
        elif self.region is not None and isinstance(target, cst.Attribute) and target.attr.value == "__class__":
            self._emit_check("class-reassign", target)  # GB4271: Dynamo does not trace it
        elif (self.region is not None and self.env is not None and isinstance(target, cst.Attribute)
              and target.attr.value == "data" and isinstance(target.value, cst.Name)
              and self.env.is_tensor(target.value) and self._computes(target.value)):
            # GB0056: `.data` of a tensor made in this graph (an input's `.data` is traced)
            self._emit_check("data-assign-region-tensor", target)
        elif (self.region is not None and self.env is not None and isinstance(target, cst.Attribute)
              and target.attr.value in ("real", "imag") and self.env.is_tensor(target.value)):
            self._emit_check("tensor-part-assign", target)  # GB0058: a getset attribute Dynamo refuses

    def _is_buffer_attr(self, target: cst.BaseExpression) -> bool:
        """`self.<attr>` where `__init__` (of the class or a base) bound `<attr>` to `nn.Buffer(...)`."""
        return (self.region is not None and self.region.cls is not None and isinstance(target, cst.Attribute)
                and isinstance(target.value, cst.Name) and target.value.value == "self"
                and target.attr.value in self.index.inherited(self.region.cls.qualname, "buffer_attrs"))

    def _may_be_buffer(self, value: cst.BaseExpression) -> bool:
        """Whether an assigned value may be an `nn.Buffer` object: `nn.Buffer(...)`, or a buffer
        attribute through methods that may return their receiver (`_MAY_RETURN_SELF`, in-place
        `*_` methods). Measured on 2.13: `Module.__setattr__` re-registers such a value and breaks
        (GB4841); a new tensor (`self.b + x`, `torch.min(self.b, x)`, `.detach()`, a real dtype
        conversion) is stored without a break, and so is `self.b = self.b`."""
        if not isinstance(value, cst.Call):
            return False
        name = dotted_name(value.func)
        if name is not None and self.info.qualify(name) in ("torch.nn.Buffer", "torch.nn.parameter.Buffer"):
            return True
        func = value.func
        if not isinstance(func, cst.Attribute):
            return False
        meth = func.attr.value
        if not (meth in _MAY_RETURN_SELF or (meth.endswith("_") and not meth.startswith("_"))):
            return False
        recv = func.value
        return self._is_buffer_attr(recv) or self._may_be_buffer(recv)

    def visit_Name(self, node: cst.Name) -> None:
        if (self.region is not None and node.value in self.info.rebound_globals
                and self.env is not None and node.value not in self.env.names):
            self._emit_check("global-mutable-read", node)


# Which checks each visit_ method runs (errors.rules_at_risk).
METHOD_CHECKS: dict[str, tuple[str, ...]] = {
    "visit_AssignTarget": ("requires-grad-set", "class-reassign", "data-assign-region-tensor",
                           "tensor-part-assign"),
    "visit_AugAssign": ("module-counter", "requires-grad-set", "buffer-reassign"),
    "visit_Assign": ("module-counter", "buffer-reassign", "data-assign-dtype"), "visit_Name": ("global-mutable-read",),
}
