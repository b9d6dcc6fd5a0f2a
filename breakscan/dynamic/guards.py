"""Classify Dynamo guard failures (recompile reasons) and suggest a fix per class.

Guard-failure texts as logged by torch 2.13 (artifact `recompiles`), e.g.
`tensor 'x' size mismatch at index 0. expected 2, actual 3` (C++ TensorGuards: size, stride,
rank, dtype, requires_grad, `dispatch key set` (device type), `Tensor device index`),
`n == 2` (a Python scalar argument), `G['G'] == 1` (a global), `self.training == True`,
`___check_obj_id(fn.__code__, 1405...)` (object identity), `___check_type_id(...)` (type),
`len(l) == 1` (container length). Pure Python; no torch import.

After a graph break Dynamo runs the breaking call eagerly and resumes in a generated function
whose arguments `___stack0`, `___stack1`, ... are the values then on the stack (the last one is
the call's result). A guard on such a value is about that result, not an argument: classes
`data_dependent_shape` (the break was a data-dependent operator, e.g. `torch.nonzero`: the
value is or carries a size read off data) and `graph_break_value` (any other Python value,
e.g. `random.random()`). `describe` turns Dynamo's internal names into words for messages.
"""

from __future__ import annotations

import re

TENSOR_RE = re.compile(r"^tensor '(?P<name>[^']*)' (?P<what>.+)$")
GLOBAL_RE = re.compile(r"^(?:not\s+)?\(?G\[")
LEN_RE = re.compile(r"^len\(")
ATTR_VALUE_RE = re.compile(r"^(?P<src>[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*|\[[^\]]*\])+)\s*(?:==|!=|is|<|>|<=|>=)\s")
NAME_VALUE_RE = re.compile(r"^(?:not\s+)?(?P<src>[A-Za-z_]\w*)\s*(?:==|!=|is|<|>|<=|>=)\s")
SELF_NAMES = ("self", "s", "mod", "module", "m")
STACK_RE = re.compile(r"___stack(?P<n>\d+)")
OBJ_ID_RE = re.compile(r"___check_obj_id\((?P<expr>.+?), \d+\)")
TYPE_ID_RE = re.compile(r"___check_type_id\((?P<expr>.+?), \d+\)")
DICT_CONTAINS_RE = re.compile(r"___dict_contains\((?P<key>.+?), (?P<expr>.+?)\)")
INTERNAL_RE = re.compile(r"(?<!\w)___(?=[A-Za-z])")
# Graph breaks on an operator whose output size (or value) depends on tensor data
# (torch 2.13 registry: Dynamic shape operator, with no meta kernel, one_hot).
DATA_DEPENDENT_GB = frozenset({"GB0036", "GB0037", "GB0246"})

TENSOR_CLASSES = (
    ("size mismatch", "shape"),
    ("stride mismatch", "stride"),
    ("rank mismatch", "rank"),
    ("dtype mismatch", "dtype"),
    ("requires_grad mismatch", "requires_grad"),
    ("dispatch key set mismatch", "device"),
    ("device index mismatch", "device"),
)

FIXES: dict[str, str] = {
    "shape": "Mark the varying dimension dynamic up front: `torch._dynamo.mark_dynamic(x, dim)` (or "
    "`torch.compile(..., dynamic=True)`), or pad/bucket inputs to a few fixed sizes.",
    "stride": "Pass tensors with one memory layout (call `.contiguous()` before the compiled call).",
    "rank": "Keep the number of dimensions fixed (reshape/unsqueeze to one rank before the call), or "
    "compile one function per rank.",
    "dtype": "Cast inputs to one dtype before the compiled call (e.g. `x.float()`); every dtype is a "
    "separate graph.",
    "device": "Move inputs (and the model) to one device before the compiled call; each device is a "
    "separate graph.",
    "requires_grad": "Call with consistent `requires_grad` (e.g. always under `torch.no_grad()` for "
    "inference, or always with grad for training).",
    "scalar_value": "Pass a changing number as a tensor (`torch.tensor(n)`) or compile with `dynamic=True`; "
    "a bool or string that selects a code path always specializes: expect one graph per value, or move "
    "the choice out of the compiled function.",
    "module_training": "Switch `model.train()`/`model.eval()` only between phases, not per call: each mode is "
    "a separate graph (expect one recompile per mode).",
    "module_attribute": "Don't change plain Python attributes of the module between calls: store the value "
    "in a tensor buffer (`register_buffer`) or set "
    "`torch._dynamo.config.allow_unspec_int_on_nn_module = True` for integer attributes.",
    "global": "Don't change a global read by compiled code between calls: pass it as an argument (a tensor "
    "if it changes often) or make it a constant.",
    "object_identity": "Pass the same object each call (e.g. one function, one module instance); a new "
    "object or function means a new graph. Hoist object creation out of the loop.",
    "type": "Pass arguments of one type each call (e.g. always a tensor, never sometimes a list).",
    "length": "Keep container lengths fixed between calls (pad lists), or pass one stacked tensor instead "
    "of a Python list.",
    "graph_break_value": "Keep the value a tensor inside the compiled code (e.g. `torch.rand(())` instead of "
    "`random.random()`, no `.item()`), or compute it outside the compiled function and pass it in as a tensor "
    "argument. `mark_dynamic` does not help: the value is a Python number made at a graph break, and Dynamo "
    "specializes the rest of the function on it.",
    "data_dependent_shape": "Let the data-dependent operator stay in the graph: "
    "`torch._dynamo.config.capture_dynamic_output_shape_ops = True` (and `capture_scalar_outputs = True` for "
    "`.item()`) gives one graph for every size; or avoid the data-dependent size (mask with "
    "`torch.where(mask, x, 0)` instead of indexing with `torch.nonzero`). Without it Dynamo recompiles for a "
    "new size, then marks it dynamic.",
    "other": "",
}

EXPLANATIONS: dict[str, str] = {
    "shape": "A tensor's size differs from the one the graph was compiled for.",
    "stride": "A tensor's strides (memory layout) differ from the compiled graph's.",
    "rank": "A tensor's number of dimensions differs from the compiled graph's.",
    "dtype": "A tensor's dtype differs from the compiled graph's.",
    "device": "A tensor is on a different device (or device type) than the compiled graph's.",
    "requires_grad": "A tensor's requires_grad differs from the compiled graph's.",
    "scalar_value": "Dynamo specialized on the value of a Python scalar argument, and the value changed.",
    "module_training": "The module's training flag changed (train/eval).",
    "module_attribute": "A Python attribute of the module changed; Dynamo treats module attributes as constants.",
    "global": "A global variable read by the compiled code changed value.",
    "object_identity": "Dynamo guarded on the identity of an object (a function, module or other object) "
    "and a different one was passed.",
    "type": "An argument's type changed.",
    "length": "The length of a list, tuple or dict changed.",
    "graph_break_value": "The guarded value was computed eagerly at a graph break (the call that broke the "
    "graph) and handed to the rest of the function, which Dynamo compiled for that exact value; a new value "
    "means a new graph.",
    "data_dependent_shape": "The guarded size comes from a data-dependent operator that broke the graph: its "
    "output size depends on the tensor's values, so it changes with the data, not with the inputs' shapes.",
    "other": "",
}


def _strip_comment(guard: str) -> str:
    """The guard expression without Dynamo's `  # source` comment."""
    return guard.split("  # ", 1)[0].strip()


def stack_slots(guard: str) -> list[int]:
    """The `___stackN` numbers a guard mentions (values carried over a graph break)."""
    return [int(m.group("n")) for m in STACK_RE.finditer(_strip_comment(guard))]


def classify(guard: str, hint: str = "", break_gb: str = "") -> str:
    """The class of one guard-failure text (see module docstring); `other` when unknown.

    `hint` is Dynamo's `(HINT: ...)` suffix, which names nn.Module integer attributes.
    `break_gb` is the graph-break id of the break whose result the guard's `___stackN` holds
    ('' when unknown): it tells a data-dependent size from any other value.
    """
    g = _strip_comment(guard)
    if stack_slots(g) and "___check_obj_id" not in g and "___check_type_id" not in g:
        if break_gb in DATA_DEPENDENT_GB:
            return "data_dependent_shape"
        if not TENSOR_RE.match(g):
            return "graph_break_value"
    m = TENSOR_RE.match(g)
    if m:
        what = m.group("what")
        return next((cls for marker, cls in TENSOR_CLASSES if marker in what), "other")
    if "Tensor device index mismatch" in g:
        return "device"
    if "___check_obj_id" in g:
        return "object_identity"
    if "___check_type_id" in g or g.startswith("isinstance("):
        return "type"
    if GLOBAL_RE.match(g):
        return "global"
    if LEN_RE.match(g):
        return "length"
    m = ATTR_VALUE_RE.match(g)
    if m:
        src = m.group("src")
        if src.endswith(".training"):
            return "module_training"
        if "attributes of the nn.Module" in (guard + hint) or src.split(".", 1)[0].split("[", 1)[0] in SELF_NAMES:
            return "module_attribute"
        return "scalar_value"
    if NAME_VALUE_RE.match(g):
        return "scalar_value"
    return "other"


def describe(guard: str, stack_values: dict[int, str] | None = None) -> str:
    """The guard as a user reads it: no Dynamo-internal names.

    `stack_values` maps a `___stackN` number to what it holds (`random.random()`; key -1: any
    number); an unknown one reads `<value at the graph break>`. `___check_obj_id(e, id)` reads
    `e is the same object`, `___check_type_id(e, id)` `type(e) is unchanged`,
    `___dict_contains(k, d)` `k in d`; any other `___name` loses its underscores.
    """
    g = _strip_comment(guard)
    values = stack_values or {}
    g = STACK_RE.sub(lambda m: values.get(int(m.group("n"))) or values.get(-1) or "<value at the graph break>", g)
    g = OBJ_ID_RE.sub(lambda m: f"{m.group('expr')} is the same object", g)
    g = TYPE_ID_RE.sub(lambda m: f"type({m.group('expr')}) is unchanged", g)
    g = DICT_CONTAINS_RE.sub(lambda m: f"{m.group('key')} in {m.group('expr')}", g)
    return INTERNAL_RE.sub("", g)
