"""What a call of a generic project function returns: its return annotation's TypeVars bound from
the call's arguments (PEP 484 generic functions).

    NdarrayTensor = TypeVar("NdarrayTensor", bound=np.ndarray | torch.Tensor)

    def convert_data_type(data, output_type: type[NdarrayTensor] | None = None
                          ) -> tuple[NdarrayTensor, type, torch.device | None]: ...

    boxes_t, *_ = convert_data_type(boxes, torch.Tensor)   # boxes_t: a tensor

A parameter annotated `type[T]` binds `T` to the class passed (`torch.Tensor`: a tensor; and
`np.ndarray`, since Dynamo traces NumPy arrays as tensors: `if (q_np < 0).any()` on
`convert_data_type(q, np.ndarray)[0]` breaks, GB0170, measured on 2.13 and 2.15); one
annotated `T` binds it to the kind of the value passed (`convert_to_dst_type(src, dst=img)`
returns what `img` is). Only a binding to a tensor is kept: anything else stays unknown
(precision first).
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from breakscan.static.syntax import dotted_name
from breakscan.static.tensors import TENSOR_ANNOTATIONS, T, TypeEnv, annotation_kind

_TYPE_HEADS = ("type", "Type")
_TUPLE_HEADS = ("tuple", "Tuple")


def _parse(source: str) -> cst.BaseExpression | None:
    try:
        return cst.parse_expression(source)
    except cst.ParserSyntaxError:
        return None


def _head(node: cst.Subscript) -> str:
    return (dotted_name(node.value) or "").rsplit(".", 1)[-1]


def union_members(ann: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The members of a union annotation (`A | None`, `Optional[A]`, `Union[A, B]`), else [ann];
    the members of a subscripted union are not unpacked further."""
    if isinstance(ann, cst.BinaryOperation) and isinstance(ann.operator, cst.BitOr):
        return [*union_members(ann.left), *union_members(ann.right)]
    if isinstance(ann, cst.Subscript) and _head(ann) in ("Optional", "Union"):
        return [e.slice.value for e in ann.slice if isinstance(e.slice, cst.Index)]
    return [ann]


def _type_var_of(ann: cst.BaseExpression, is_type_var: Callable[[str], bool]) -> tuple[str, bool] | None:
    """(TypeVar name, whether the parameter takes the class) when `ann` is `T`, `type[T]`, or
    either of them or None (`type[T] | None`); else None."""
    found = [m for m in union_members(ann) if not (isinstance(m, cst.Name) and m.value == "None")]
    if len(found) != 1:
        return None
    member = found[0]
    if isinstance(member, cst.Subscript) and _head(member) in _TYPE_HEADS and len(member.slice) == 1 \
            and isinstance(member.slice[0].slice, cst.Index):
        inner = dotted_name(member.slice[0].slice.value)
        return (inner, True) if inner and is_type_var(inner) else None
    name = dotted_name(member)
    return (name, False) if name and is_type_var(name) else None


def _passed(call: cst.Call, params: list[str], name: str) -> cst.BaseExpression | None:
    """The expression `call` passes for parameter `name` (positions from `params`), or None."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    position = params.index(name) if name in params else -1
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in positional[:position + 1]) or not 0 <= position < len(positional):
        return None
    return positional[position].value


def generic_return(returns: str, param_annotations: dict[str, str], params: list[str], call: cst.Call,
                   env: TypeEnv, is_type_var: Callable[[str], bool],
                   qualify: Callable[[str], str]) -> tuple[T, list[T] | None] | None:
    """(kind, tuple element kinds) of what `call` returns when the callee's return annotation
    (`returns`, source) holds a TypeVar that the call binds to a tensor; None otherwise.

    `param_annotations`: the callee's parameter annotations (source) by name; `params`: its
    positional parameter names in order (`self` left out by the caller for a bound call);
    `is_type_var(name)`: whether a name in the callee's module is a TypeVar; `qualify(name)`:
    a dotted name of the caller's module, qualified (`Tensor` -> `torch.Tensor`)."""
    ret = _parse(returns)
    if ret is None:
        return None
    bound: dict[str, T] = {}
    for name, source in param_annotations.items():
        ann = _parse(source)
        found = _type_var_of(ann, is_type_var) if ann is not None else None
        value = _passed(call, params, name) if found is not None else None
        if value is None:
            continue
        type_var, takes_class = found
        if takes_class:
            passed = qualify(dotted_name(value) or "")
            # NumPy arrays made in a region are traced as tensors (torch._numpy), like the inference's
            is_tensor = passed == "numpy.ndarray" or (
                passed.startswith("torch.") and passed.rsplit(".", 1)[-1] in TENSOR_ANNOTATIONS)
        else:
            is_tensor = env.kind(value) is T.TENSOR
        kind = T.TENSOR if is_tensor else T.UNKNOWN  # bound to something else: nothing known
        bound[type_var] = kind if bound.get(type_var, kind) is kind else T.UNKNOWN  # two disagree
    if T.TENSOR not in bound.values():
        return None

    def kind(node: cst.BaseExpression) -> T:
        name = dotted_name(node)
        if name in bound:
            return bound[name]
        return annotation_kind(node) or T.UNKNOWN

    if isinstance(ret, cst.Subscript) and _head(ret) in _TUPLE_HEADS:
        if any(not isinstance(e.slice, cst.Index) or isinstance(e.slice.value, cst.Ellipsis) for e in ret.slice):
            return None
        return T.UNKNOWN, [kind(e.slice.value) for e in ret.slice]
    result = kind(ret)
    return (result, None) if result is T.TENSOR else None
