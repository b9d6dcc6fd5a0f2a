"""A light, precision-first type inference: is this expression a tensor, a shape, a scalar?

`unknown` is never flagged. Shapes (`.shape`, `.size()`, `len()`, `.dim()`) are symbolic ints
Dynamo guards on: a branch on a shape is a guard, not a graph break.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from enum import Enum

import libcst as cst

from breakscan.static.index import TENSOR_ANNOTATIONS, TORCH_FACTORIES, ModuleInfo
from breakscan.static.syntax import dotted_name
from breakscan.static.torch_data import python_value_returns, tensor_method_names
from breakscan.static.walk import children


class T(Enum):
    """Inferred kinds of values."""

    TENSOR = "tensor"
    BOOL_TENSOR = "bool-tensor"  # a tensor known to hold booleans (comparisons, masks)
    TENSOR_SEQ = "tensor-seq"  # tuple/list of tensors (split, chunk, unbind)
    BOOL_TENSOR_MAP = "bool-tensor-map"  # dict of boolean tensors (`{k: labels == i ...}`): masks
    TENSOR_MAP = "tensor-map"  # dict of tensors (`Dict[str, Tensor]`, `{"a": x}`): its keys are not
    SHAPE = "shape"  # torch.Size / symbolic int
    # A 0-dim tensor torch math makes from Python numbers (`torch.div(seq_len, 2)`): Dynamo keeps it
    # a constant tensor, so a size argument takes it, but a branch, slice bound, `range()` or `int()`
    # of it reads its value and breaks (measured on 2.13 and 2.15). Not TENSORISH: checks opt in.
    FOLDED = "folded"
    SCALAR = "scalar"  # a plain Python value
    # A number from `random` that Dynamo traces into a 0-dim tensor (TRACED_RANDOM): a branch on it,
    # a slice bound or `int()` reads its value and breaks; arithmetic with a tensor stays in the
    # graph, with a Python number it makes the frame fall back (GB0213, BRK264); a size or fill
    # argument takes it (measured on 2.13 and 2.15). Not TENSORISH: checks opt in.
    RANDOM = "random"
    # A member of a project enum class that derives from `str` (`class Weight(str, Enum)`): a
    # `str` method called on it is not traced (GB0156, measured on 2.13 and 2.15); `==` and
    # `.value` are.
    STR_ENUM = "str-enum"
    MODULE = "module"
    UNKNOWN = "unknown"


TENSORISH = (T.TENSOR, T.BOOL_TENSOR)
TENSOR_MAPS = (T.TENSOR_MAP, T.BOOL_TENSOR_MAP)


def map_of(kind: T) -> T | None:
    """The kind of a dict whose values all have `kind`: a dict of boolean tensors keeps what its
    subscripts give (a mask), a dict of tensors; None for values that are not tensors."""
    return T.BOOL_TENSOR_MAP if kind is T.BOOL_TENSOR else T.TENSOR_MAP if kind is T.TENSOR else None


def map_value(kind: T) -> T:
    """What a subscript, `.get()` or `.pop()` of a dict of kind `kind` (TENSOR_MAPS) gives."""
    return T.BOOL_TENSOR if kind is T.BOOL_TENSOR_MAP else T.TENSOR


MODULE_DICTS = frozenset({"torch.nn.ModuleDict", "torch.nn.modules.container.ModuleDict"})

# Tensor methods that do not return a tensor.
SHAPE_METHODS = {"size", "dim", "ndimension", "numel", "stride", "nelement", "__len__", "storage_offset"}
NON_TENSOR_METHODS = SHAPE_METHODS | {
    "item", "tolist", "data_ptr", "is_contiguous", "element_size", "get_device", "is_floating_point",
    "is_complex", "is_pinned", "is_shared", "untyped_storage", "numpy", "type", "is_set_to",
    "has_names", "is_coalesced", "is_nonzero", "equal", "__repr__", "__str__", "__format__",
    "register_hook", "backward", "dim_order",
}
SEQ_METHODS = {"split", "chunk", "unbind", "tensor_split", "split_with_sizes", "unsafe_chunk"}
BOOL_METHODS = {"eq", "ne", "lt", "le", "gt", "ge", "isnan", "isinf", "isfinite", "logical_and",
                "logical_or", "logical_not", "logical_xor", "bool", "any", "all", "isclose",
                "isneginf", "isposinf", "signbit"}
SHAPE_ATTRS = {"shape", "ndim"}
NON_TENSOR_ATTRS = SHAPE_ATTRS | {"dtype", "device", "is_cuda", "requires_grad", "layout",
                                  "is_leaf", "is_sparse", "is_quantized", "is_meta", "names",
                                  "itemsize", "nbytes", "grad_fn", "is_mps", "is_cpu"}
TENSOR_ATTRS = {"T", "mT", "H", "mH", "data", "grad", "real", "imag"}
# Methods that only torch tensors have (not NumPy arrays, nn.Modules or Python values) and that
# return a tensor: called on a value of unknown type, the result is a tensor (`mask.long().sum()`).
TENSOR_ONLY_METHODS = {"long", "unsqueeze", "masked_fill", "type_as", "contiguous", "eq", "ne", "pow"}
# Tensor methods whose result keeps the receiver's dtype: a boolean mask reshaped, repeated or
# moved (`m.bool().unsqueeze(1).repeat(1, c, 1, 1)`) is still a mask. `view` keeps it unless given
# a dtype (`m.view(torch.uint8)`); `to` and `type` may change it and are left out.
# Tensor methods whose result takes the dtype they are given (`dtype=torch.bool`, `.to(torch.bool)`).
DTYPE_SETTING_METHODS = {"to", "type", "new_zeros", "new_ones", "new_full", "new_empty", "new_tensor"}
DTYPE_KEEPING_METHODS = {"unsqueeze", "squeeze", "repeat", "expand", "expand_as", "view", "view_as", "reshape",
                         "reshape_as", "flatten", "unflatten", "permute", "transpose", "t", "movedim", "contiguous",
                         "clone", "detach", "flip", "fliplr", "flipud", "roll", "narrow", "select", "tile",
                         "repeat_interleave", "rot90", "diagonal", "triu", "tril"}

# torch functions that return something other than a tensor.
TORCH_NON_TENSOR = {
    "torch.is_tensor", "torch.is_floating_point", "torch.is_complex", "torch.numel",
    "torch.get_default_dtype", "torch.is_grad_enabled", "torch.is_inference_mode_enabled",
    "torch.finfo", "torch.iinfo", "torch.device", "torch.Size", "torch.dtype", "torch.equal",
    "torch.is_autocast_enabled", "torch.get_autocast_gpu_dtype", "torch.promote_types",
    "torch.result_type", "torch.can_cast", "torch.is_storage", "torch.is_nonzero",
    "torch.no_grad", "torch.enable_grad", "torch.set_grad_enabled", "torch.inference_mode",
    "torch.autocast", "torch.manual_seed", "torch.compile", "torch.broadcast_shapes",
    "torch.typename", "torch.get_device", "torch.is_same_size", "torch.Generator",
}
TORCH_NON_TENSOR_PREFIXES = ("torch.cuda.", "torch.jit.", "torch.backends.", "torch.compiler.",
                             "torch._dynamo.", "torch.distributed.", "torch.utils.", "torch.nn.init.",
                             "torch.testing.", "torch.fx.", "torch.overrides.", "torch.autograd.",
                             "torch.library.", "torch.ops.", "torch.export.", "torch.onnx.",
                             "torch.mps.", "torch.xpu.", "torch.accelerator.", "torch.amp.")


# torch.is_*, torch.are_*, torch.get_* query state or metadata (get_rng_state is the one tensor).
TORCH_STATE_QUERIES = ("torch.is_", "torch.are_", "torch.get_")
TORCH_SEQ = {"torch.split", "torch.chunk", "torch.unbind", "torch.tensor_split", "torch.meshgrid",
             "torch.broadcast_tensors", "torch.split_with_sizes", "torch.sort", "torch.topk",
             "torch.max", "torch.min", "torch.var_mean", "torch.std_mean", "torch.unique",
             "torch.where", "torch.nonzero", "torch.aminmax", "torch.kthvalue", "torch.mode",
             "torch.median", "torch.nanmedian", "torch.cummax", "torch.cummin", "torch.frexp",
             "torch.linalg.eigh", "torch.linalg.qr", "torch.linalg.svd", "torch.histogram"}
# Methods called on a comparison's result that only an array has (a Python bool has none): the
# comparison is elementwise, a tensor mask (a NumPy one is a tensor too under Dynamo).
MASK_METHODS = {"sum", "any", "all", "nonzero", "float", "long", "int", "mean", "count_nonzero", "flatten"}


def _elementwise_comparison(node: cst.BaseExpression) -> bool:
    """`a < b`, `x == y`: a comparison by value (not `in`, `is`)."""
    return isinstance(node, cst.Comparison) and not any(
        isinstance(c.operator, (cst.In, cst.NotIn, cst.Is, cst.IsNot)) for c in node.comparisons)


# torch functions that return one tensor unless a flag asks for a tuple: the flags' keywords, and
# how many positional arguments come before the first flag (the tensor's included)
_TUPLE_ON_REQUEST = {"torch.nonzero": (("as_tuple",), 1),
                     "torch.unique": (("return_inverse", "return_counts"), 2),
                     "torch.unique_consecutive": (("return_inverse", "return_counts"), 1)}


def _tuple_on_request(node: cst.Call, name: str, positional_from: int) -> T:
    """`torch.nonzero(x)` / `x.unique()`: a tensor; with a tuple flag set to `True`
    (`as_tuple=True`, `return_counts=True`): a tuple of tensors; a flag given by position or by a
    name (`return_counts=flag`): unknown. `positional_from`: 1 for a torch function (the tensor
    is the first argument), 0 for a method."""
    flags, before = _TUPLE_ON_REQUEST[f"torch.{name}"]
    if any(not a.keyword and not a.star for a in node.args[before - 1 + positional_from:]) \
            or any(a.star for a in node.args):
        return T.UNKNOWN
    set_flags = [a.value for a in node.args if a.keyword is not None and a.keyword.value in flags]
    if not set_flags or all(isinstance(v, cst.Name) and v.value == "False" for v in set_flags):
        return T.TENSOR
    if all(isinstance(v, cst.Name) and v.value in ("True", "False") for v in set_flags):
        return T.TENSOR_SEQ
    return T.UNKNOWN


# torch functions and tensor methods that reduce (one tensor), compare elementwise (two tensors)
# or return a (values, indices) pair (a `dim` given): the kind depends on the arguments.
_REDUCTION_OR_PAIR = {"max", "min", "median", "nanmedian"}
# torch ops that take a list of tensors (often built with `append` on `[]`, which reads as a Python
# value): their result is a tensor, never a number Dynamo folds.
TENSOR_LIST_OPS = {"torch.stack", "torch.cat", "torch.concat", "torch.concatenate", "torch.hstack", "torch.vstack",
                   "torch.dstack", "torch.column_stack", "torch.row_stack"}
TORCH_BOOL = {"torch.isnan", "torch.isinf", "torch.isfinite", "torch.eq", "torch.ne", "torch.lt",
              "torch.le", "torch.gt", "torch.ge", "torch.logical_and", "torch.logical_or",
              "torch.logical_not", "torch.logical_xor", "torch.any", "torch.all", "torch.isclose",
              "torch.isin", "torch.signbit", "torch.greater", "torch.less"}
TORCH_SHAPE_RETURN = {"torch.numel"}
# NumPy functions that return arrays. Under Dynamo NumPy code is traced as tensors (torch._numpy),
# even on Python ints (`np.lcm(4, 6)`): a Python branch on, a size from, or `int()` of the result is
# data-dependent (checked on 2.13: GB0170, GB0033, GB0208). `np.random`, dtypes and `finfo` are not here.
NUMPY_ARRAY_FUNCS = {
    "array", "asarray", "zeros", "ones", "empty", "full", "zeros_like", "ones_like", "full_like",
    "empty_like", "arange", "linspace", "eye", "identity", "sum", "prod", "mean", "std", "var", "max",
    "min", "amax", "amin", "argmax", "argmin", "cumsum", "cumprod", "lcm", "gcd", "sqrt", "exp", "log",
    "log2", "log10", "abs", "absolute", "floor", "ceil", "round", "rint", "clip", "maximum", "minimum",
    "power", "square", "sin", "cos", "tanh", "where", "concatenate", "stack", "vstack", "hstack",
    "reshape", "transpose", "expand_dims", "squeeze", "repeat", "tile", "dot", "matmul", "outer",
    "floor_divide", "mod", "remainder", "sign", "all", "any", "count_nonzero", "sort", "argsort",
    "flip", "roll", "triu", "tril", "einsum", "pad", "diff", "cross", "bincount", "searchsorted",
}
# `random` calls Dynamo traces into a 0-dim tensor (a branch on the value breaks, GB0170; a slice
# bound reads it, GB0124; arithmetic stays in the graph), measured on 2.13 and 2.15 where no rule
# breaks at the call (BRK205 does for `random.random()` before 2.14).
TRACED_RANDOM = {"random.random", "random.randint", "random.uniform", "random.randrange"}
# Receivers whose attributes are configuration values (Python scalars, strings, lists).
CONFIG_NAMES = {"config", "cfg", "hparams"}
PY_SHAPE_BUILTINS = {"len"}
MAPPING_ANNOTATIONS = {"Dict", "dict", "Mapping", "MutableMapping", "OrderedDict"}
SCALAR_ANNOTATIONS = {"int", "float", "bool", "str", "bytes", "complex", "dict", "list", "tuple",
                      "set", "Callable", "type", "Cache", "DynamicCache", "Dict", "List", "Tuple"}


def _unquoted(ann: cst.BaseExpression | None) -> cst.BaseExpression | None:
    """A string annotation (`"Tensor"`) parsed as the expression it holds; None when it does
    not parse; any other annotation as it is."""
    if isinstance(ann, cst.SimpleString):
        text = ann.evaluated_value
        if isinstance(text, str):
            try:
                return cst.parse_expression(text)
            except cst.ParserSyntaxError:
                return None
    return ann


def self_attribute(node: cst.BaseExpression) -> str:
    """`attr` of `self.attr`, else ""."""
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
        return node.attr.value
    return ""


def element_classes(held: Collection[str]) -> list[str]:
    """The project classes among what `__init__` stores in a container attribute (ClassInfo.submodules:
    `{"train": LossMeter()}`, `nn.ModuleList([Block(), Block()])`), each once: an element's classes.
    Torch's classes and builtins (`dict`, the container itself) are not elements."""
    return [c for c in dict.fromkeys(held) if "." in c and not c.startswith("torch.")]


def is_super_call(node: cst.BaseExpression) -> bool:
    """`super()` or `super(Cls, self)`."""
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "super"


def annotation_kind(ann: cst.BaseExpression | None) -> T | None:
    """Kind from a parameter annotation: `Tensor`, `Optional[Tensor]`, `Tensor | None`, `int`..."""
    ann = _unquoted(ann)
    if ann is None:
        return None
    if isinstance(ann, cst.BinaryOperation) and isinstance(ann.operator, cst.BitOr):
        kinds = {annotation_kind(ann.left), annotation_kind(ann.right)} - {None}
        return T.TENSOR if T.TENSOR in kinds else (kinds.pop() if len(kinds) == 1 else None)
    if isinstance(ann, cst.Subscript):
        head = (dotted_name(ann.value) or "").rsplit(".", 1)[-1]
        if head in MAPPING_ANNOTATIONS and len(ann.slice) == 2 and isinstance(ann.slice[1].slice, cst.Index):
            value = annotation_kind(ann.slice[1].slice.value)
            return T.TENSOR_MAP if value is T.TENSOR else T.SCALAR
        if head == "Optional" and ann.slice:
            inner = ann.slice[0].slice
            if isinstance(inner, cst.Index):
                return annotation_kind(inner.value)
        if head == "Union":  # `Union[Tensor, None]`: a tensor; with any other member, unknown
            members = [e.slice.value for e in ann.slice if isinstance(e.slice, cst.Index)]
            kinds = {annotation_kind(m) for m in members if not (isinstance(m, cst.Name) and m.value == "None")}
            return T.TENSOR if kinds == {T.TENSOR} and len(members) == len(ann.slice) else None
        if head in ("Tuple", "tuple", "List", "list"):
            inner_kinds = {
                annotation_kind(e.slice.value) for e in ann.slice if isinstance(e.slice, cst.Index)
            }
            return T.TENSOR_SEQ if inner_kinds == {T.TENSOR} else T.SCALAR
        return T.SCALAR if head in SCALAR_ANNOTATIONS else None
    name = (dotted_name(ann) or "").rsplit(".", 1)[-1]
    if name in TENSOR_ANNOTATIONS:
        return T.TENSOR
    if name == "Size":
        return T.SHAPE
    if name in SCALAR_ANNOTATIONS or name == "None":
        return T.SCALAR
    return None


def annotation_elements(ann: cst.BaseExpression | None) -> list[T] | None:
    """Element kinds of a fixed-length tuple annotation (`Tuple[Tensor, Optional[Tensor]]`,
    `tuple[Tensor, int]`), one per element (UNKNOWN where the element's annotation says nothing
    known); None for anything else (`Tuple[Tensor, ...]`, a list, a bare name)."""
    ann = _unquoted(ann)
    if not isinstance(ann, cst.Subscript) or (dotted_name(ann.value) or "").rsplit(".", 1)[-1] not in ("Tuple", "tuple"):
        return None
    kinds: list[T] = []
    for element in ann.slice:
        if not isinstance(element.slice, cst.Index) or isinstance(element.slice.value, cst.Ellipsis):
            return None
        kinds.append(annotation_kind(element.slice.value) or T.UNKNOWN)
    return kinds


class TypeEnv:
    """Kinds of names in one function scope (a child scope sees its parent's names).

    `self_attrs` gives the enclosing class's tensor attributes (parameters, buffers),
    scalar attributes, and submodule attributes, from the project index.
    """

    def __init__(self, info: ModuleInfo, parent: TypeEnv | None = None,
                 self_tensors: set[str] = frozenset(), self_scalars: set[str] = frozenset(),
                 self_iterates_modules: bool = False,
                 self_properties: frozenset[str] = frozenset(),
                 returns: Callable[[cst.Call, TypeEnv], T] | None = None,
                 tuple_returns: Callable[[cst.Call, TypeEnv], list[T] | None] | None = None,
                 globals_: Callable[[str], T | None] | None = None,
                 self_sub_classes: dict[str, list[str]] | None = None,
                 self_modules: frozenset[str] | None = None,
                 holds_tensor: Callable[[Collection[str], str], bool] | None = None,
                 properties_of: Callable[[str], frozenset[str]] | None = None,
                 traced_random: Callable[[str, cst.Call, TypeEnv], bool] | None = None,
                 self_str_enums: frozenset[str] = frozenset()) -> None:
        """`returns(call, env)` gives the return kind of a call to a project function (or UNKNOWN),
        `env` the scope the call is made in (its arguments' kinds); `tuple_returns(call, env)` the
        kinds of the elements of the tuple it always returns (or None);
        `globals_(qualname)` the kind of a module global (module_globals.global_kind), or None;
        `self_sub_classes` the classes `__init__` stores in each `self.<sub>` (its keys are the
        submodule attributes, `self_modules`, unless `self_modules` names them), and
        `holds_tensor(classes, attr)` whether `attr` is a tensor attribute of every one of those
        project classes (ProjectIndex.holds_tensor_attr): `self.sched.timesteps`, and `sched.timesteps`
        for a local instance (`instances`, set per function scope: name -> qualified class);
        `properties_of(class)` the property getters of a project class (ProjectIndex.property_names):
        `meter.avg` of a local instance reads what its getter returns;
        `traced_random(qualname, call, env)` whether Dynamo traces that `random` call (TRACED_RANDOM) into a
        tensor on the target torch (no active rule breaks at the call: `random.random()` from 2.14);
        `self_str_enums` the attributes holding a `str` enum member (ProjectIndex.str_enum_attrs)."""
        self.info = info
        self.parent = parent
        self.names: dict[str, T] = {}
        self.self_tensors = self_tensors if parent is None else parent.self_tensors
        self.self_str_enums = self_str_enums if parent is None else parent.self_str_enums
        self.self_scalars = self_scalars if parent is None else parent.self_scalars
        # `self` is an nn.Sequential / nn.ModuleList: `for layer in self` gives its submodules
        self.self_iterates_modules = self_iterates_modules if parent is None else parent.self_iterates_modules
        # property getters of the class: `self.scale` reads as what the getter returns (`returns`)
        self.self_properties = self_properties if parent is None else parent.self_properties
        self.returns = returns if parent is None else parent.returns
        self.tuple_returns = tuple_returns if parent is None else parent.tuple_returns
        self.globals_ = globals_ if parent is None else parent.globals_
        self.traced_random = traced_random if parent is None else parent.traced_random
        self.self_sub_classes = (self_sub_classes or {}) if parent is None else parent.self_sub_classes
        if parent is not None:
            self.self_modules = parent.self_modules
        else:
            self.self_modules = frozenset(self.self_sub_classes) if self_modules is None else self_modules
        self.holds_tensor = holds_tensor if parent is None else parent.holds_tensor
        self.properties_of = properties_of if parent is None else parent.properties_of
        # FunctionInfo.local_classes of the walked def, qualified: set on the outermost scope before
        # the walk (call_sites), shared by the scopes inside it (lambdas, comprehensions)
        self.instances: dict[str, str] = {} if parent is None else parent.instances
        self.function: cst.FunctionDef | None = None  # the def of this scope: its names shadow globals
        # Its parameters annotated as a tensor: as for mypy, their type in the whole body
        # (Binder.leave_Assign keeps them tensors; call_sites._declared_tensors).
        self.declared: frozenset[str] = frozenset()
        self._locals: set[str] | None = None
        self._cache: dict[int, T] = {}
        self._attrs_bound = False  # an attribute of a local was bound here (`out.loss`)

    def lookup(self, name: str) -> T:
        """The kind bound to `name` here or in an enclosing scope, else UNKNOWN."""
        env: TypeEnv | None = self
        while env is not None:
            if name in env.names:
                return env.names[name]
            env = env.parent
        return self._global(name) or T.UNKNOWN

    def _global(self, name: str) -> T | None:
        """The kind of `name` as a module global of known kind (own or imported), unless a
        function around bound it (a local assigned later in the body, a parameter)."""
        if self.globals_ is None:
            return None
        kind = self.globals_(self.info.qualify(name))
        env: TypeEnv | None = self
        while kind is not None and env is not None:
            if env.function is not None:
                if env._locals is None:
                    env._locals = local_names(env.function)
                if name in env._locals:
                    return None
            env = env.parent
        return kind

    def instance_of(self, name: str) -> str | None:
        """The qualified class of the local instance `name` (`instances`), or None."""
        return self.instances.get(name) if self.instances else None

    def is_local(self, name: str) -> bool:
        """Whether `name` is bound in this function or an enclosing one (it shadows a global)."""
        env: TypeEnv | None = self
        while env is not None:
            if name in env.names:
                return True
            env = env.parent
        return False

    def bind(self, target: cst.BaseExpression, kind: T, elements: list[T] | None = None) -> None:
        """Bind an assignment target (name, tuple, starred, or an attribute of a local object other
        than `self`: `out.loss`) to `kind`.

        `elements` (see `element_kinds`) are the kinds of the assigned tuple's elements: a tuple
        target of the same length without a starred name takes them one by one; one with a
        starred name binds the names before and after the star one by one.
        """
        self._cache.clear()
        if isinstance(target, cst.Name):
            if self._attrs_bound:  # a new object: none of the old one's attributes
                prefix = target.value + "."
                self.names = {k: v for k, v in self.names.items() if not k.startswith(prefix)}
            self.names[target.value] = kind
        elif (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)
              and target.value.value != "self" and self.is_local(target.value.value)):
            # `out.loss = F.cross_entropy(...)` on a local object: `out.loss` reads it back (_attribute)
            self._attrs_bound = True
            self.names[f"{target.value.value}.{target.attr.value}"] = kind
        elif isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) \
                and target.value.value == "self" and kind in TENSORISH:
            # `self.value = loss.detach()`: read back as that tensor below in this function
            # (`if self.value > 5`), whatever `__init__` first stored there (`None`)
            self._attrs_bound = True
            self.names[f"self.{target.attr.value}"] = kind
        elif isinstance(target, cst.Subscript) and (held := self_attribute(target.value)):
            # `self.history[-1] = t`: read back as `t`'s kind below in this function; a store at
            # another index (`self.history[i] = ...`) may overwrite any element
            self._attrs_bound = True
            key = _element_key(target)
            if key is None:
                prefix = f"self.{held}["
                self.names = {k: v for k, v in self.names.items() if not k.startswith(prefix)}
            elif kind in TENSORISH:
                self.names[key] = kind
            else:
                self.names.pop(key, None)
        elif (isinstance(target, (cst.Tuple, cst.List)) and elements is not None
              and len(elements) == len(target.elements)
              and not any(isinstance(el, cst.StarredElement) for el in target.elements)):
            for el, element in zip(target.elements, elements):
                self.bind(el.value, element)
        elif (isinstance(target, (cst.Tuple, cst.List)) and elements is not None
              and sum(isinstance(el, cst.StarredElement) for el in target.elements) == 1
              and len(elements) >= len(target.elements) - 1):
            # `x, *_ = f()` with f's element kinds known: the names around the star one by one
            star = next(i for i, el in enumerate(target.elements) if isinstance(el, cst.StarredElement))
            after = len(target.elements) - star - 1
            for el, element in zip(target.elements[:star], elements):
                self.bind(el.value, element)
            for el, element in zip(target.elements[star + 1:], elements[len(elements) - after:]):
                self.bind(el.value, element)
            self.bind(target.elements[star].value, T.UNKNOWN)
        elif isinstance(target, (cst.Tuple, cst.List)):
            inner = T.TENSOR if kind in (T.TENSOR_SEQ, T.TENSOR) else (
                T.SHAPE if kind is T.SHAPE else T.UNKNOWN)
            for el in target.elements:
                value = el.value
                if isinstance(el, cst.StarredElement):
                    self.bind(value, T.TENSOR_SEQ if inner is T.TENSOR else T.UNKNOWN)
                else:
                    self.bind(value, inner)

    def bound(self) -> dict[str, T]:
        """A copy of the names bound in this scope (not its parents'), to restore or join later."""
        return dict(self.names)

    def restore(self, names: dict[str, T]) -> None:
        """Rebind this scope's names to `names` (a `bound()` copy): back to the state before a branch."""
        self.names = dict(names)
        self._cache.clear()

    def join_path(self, other: dict[str, T]) -> None:
        """After an `if`: the names as the other path left them (`other`) meet this path's.

        A name that is a tensor on one path and a Python value on the other is a tensor
        (`join_kinds`, as for `a if c else b`); where the join is unknown the current binding
        stays (precision first: this only adds tensors the paths agree on being possible).
        A name bound on the other path only is taken from it.
        """
        for name, kind in other.items():
            mine = self.names.get(name)
            if mine is None:
                self.names[name] = kind
            elif mine is not kind:
                joined = join_kinds([mine, kind])
                if joined is not T.UNKNOWN:
                    self.names[name] = joined
        self._cache.clear()

    def element_kinds(self, node: cst.BaseExpression) -> list[T] | None:
        """Kinds of the elements of a tuple value, when known one by one: a tuple or list display
        without starred elements, or a call of a function of this module that always returns a
        tuple display of one length (`tuple_returns`); else None."""
        if isinstance(node, (cst.Tuple, cst.List)):
            if any(isinstance(el, cst.StarredElement) for el in node.elements):
                return None
            return [self.kind(el.value) for el in node.elements]
        if (isinstance(node, cst.Call) and self.tuple_returns is not None
                and not (isinstance(node.func, cst.Name) and self.is_local(node.func.value))):
            return self.tuple_returns(node, self)
        return None

    # inference ---------------------------------------------------------------------------
    def kind(self, node: cst.BaseExpression) -> T:
        """The inferred kind of an expression (memoized until the next `bind`)."""
        key = id(node)
        if key not in self._cache:
            self._cache[key] = self._kind(node)
        return self._cache[key]

    def is_tensor(self, node: cst.BaseExpression) -> bool:
        """Whether `node` is inferred to be a tensor (booleans included)."""
        return self.kind(node) in TENSORISH

    def reads_as_tensor(self, node: cst.BaseExpression) -> bool:
        """Whether reading `node`'s value (a branch, a slice bound, `range()`, `int()`) reads a
        tensor: `is_tensor`, a FOLDED 0-dim tensor torch math made from Python numbers, or a
        RANDOM number Dynamo traced from `random`."""
        return self.kind(node) in (*TENSORISH, T.FOLDED, T.RANDOM)

    def _kind(self, node: cst.BaseExpression) -> T:
        if isinstance(node, cst.Name):
            if node.value in ("True", "False", "None"):
                return T.SCALAR
            return self.lookup(node.value)
        if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString,
                             cst.ConcatenatedString, cst.FormattedString)):
            return T.SCALAR
        if isinstance(node, cst.Attribute):
            return self._attribute(node)
        if isinstance(node, cst.Call):
            return self._call(node)
        if isinstance(node, cst.BinaryOperation):
            return self._binary(node)
        if isinstance(node, cst.UnaryOperation):
            inner = self.kind(node.expression)
            if isinstance(node.operator, cst.Not):
                return T.SCALAR
            if isinstance(node.operator, cst.BitInvert) and inner in TENSORISH:
                return inner
            return inner
        if isinstance(node, cst.Comparison):
            return self._comparison(node)
        if isinstance(node, cst.Subscript):
            return self._subscript(node)
        if isinstance(node, (cst.Tuple, cst.List)):
            kinds = {self.kind(e.value) for e in node.elements if not isinstance(e, cst.StarredElement)}
            if kinds and kinds <= set(TENSORISH):
                return T.TENSOR_SEQ
            return T.SCALAR if not kinds or kinds <= {T.SCALAR, T.SHAPE} else T.UNKNOWN
        if isinstance(node, cst.IfExp):
            a, b = self.kind(node.body), self.kind(node.orelse)
            return a if a == b else (a if b is T.SCALAR and a in TENSORISH else T.UNKNOWN)
        if isinstance(node, cst.BooleanOperation):
            # `a and b` is `a` when `a` is falsy: a tensor on one path, `b` on the other.
            a, b = self.kind(node.left), self.kind(node.right)
            return a if a == b else (a if b in (T.SCALAR, T.SHAPE) and a in TENSORISH else T.UNKNOWN)
        if isinstance(node, cst.Dict):  # `{"a": x, "b": y}` of tensors: subscripts give tensors
            values = [e.value for e in node.elements if isinstance(e, cst.DictElement)]
            kinds = {self.kind(v) for v in values}
            if values and len(values) == len(node.elements) and kinds <= set(TENSORISH):
                return map_of(kinds.pop() if len(kinds) == 1 else T.TENSOR)
            return T.SCALAR
        if isinstance(node, cst.ListComp):  # `[h * 2 for h in hs]`: a list of tensors
            return T.TENSOR_SEQ if self.element_of(node) in TENSORISH else T.SCALAR
        if isinstance(node, cst.DictComp):  # `{k: head(x) for k, head in self.heads.items()}`
            return map_of(self.comprehension_scope(node).kind(node.value)) or T.SCALAR
        if isinstance(node, (cst.Set, cst.SetComp, cst.Lambda)):
            return T.SCALAR
        return T.UNKNOWN

    def element_kind(self, it: cst.BaseExpression) -> T:
        """The kind of what iterating `it` gives: a tensor for a tensor or a list of tensors (rows,
        elements), a module for a module list (or `self` in an nn.Sequential or nn.ModuleList
        subclass), a Python value for `range()`, else UNKNOWN."""
        kind = self.kind(it)
        if kind in (T.TENSOR_SEQ, *TENSORISH):
            return T.TENSOR
        if kind is T.MODULE or (self.self_iterates_modules and isinstance(it, cst.Name) and it.value == "self"):
            return T.MODULE
        if isinstance(it, cst.Call) and dotted_name(it.func) == "range":
            return T.SCALAR
        if isinstance(it, cst.Call) and isinstance(it.func, cst.Attribute) and it.func.attr.value == "values" \
                and not it.args and self._module_dict(it.func.value):
            return T.MODULE  # `for head in self.heads.values():`
        return T.UNKNOWN

    def _module_dict(self, node: cst.BaseExpression) -> bool:
        """`self.<sub>` that `__init__` sets to an `nn.ModuleDict` (its submodules are its values)."""
        held = self.self_sub_classes.get(self_attribute(node)) if isinstance(node, cst.Attribute) else None
        return bool(held) and held[0] in MODULE_DICTS

    def zipped_iterables(self, it: cst.BaseExpression) -> list[cst.BaseExpression | None] | None:
        """Per position of the tuples `zip(a, b, ...)` or `enumerate(a)` give, the iterable it
        comes from (None for `enumerate`'s counter); None for any other iterable."""
        if not (isinstance(it, cst.Call) and it.args and all(a.keyword is None and not a.star for a in it.args)):
            return None
        name = dotted_name(it.func)
        if name not in ("zip", "enumerate") or self.is_local(name):
            return None
        if name == "enumerate":
            return [None, it.args[0].value] if len(it.args) == 1 else None
        return [a.value for a in it.args]

    def zipped_kinds(self, it: cst.BaseExpression) -> list[T] | None:
        """Per position, the kinds of the tuples `zip(...)`/`enumerate(...)` give (for `for v, i in
        zip(values, ids):`): `element_kind` of each iterable, a Python int for the counter; for
        `d.items()` of a dict of tensors, an unknown key and a tensor; for `self.heads.items()` of an
        `nn.ModuleDict`, a name and a submodule."""
        if isinstance(it, cst.Call) and isinstance(it.func, cst.Attribute) and it.func.attr.value == "items" \
                and not it.args:
            if (held := self.kind(it.func.value)) in TENSOR_MAPS:
                return [T.UNKNOWN, map_value(held)]  # `for name, value in losses.items():` over a dict of tensors
            if self._module_dict(it.func.value):
                return [T.SCALAR, T.MODULE]  # `for name, head in self.heads.items():`
        sources = self.zipped_iterables(it)
        if sources is None:
            return None
        return [T.SCALAR if src is None else self._zipped_element(src) for src in sources]

    def _zipped_element(self, src: cst.BaseExpression) -> T:
        """`element_kind` of one iterable of a `zip`/`enumerate`; for a nested `zip(a, b)`
        (`enumerate(zip(starts, ends))`) a tuple of tensors when each of its iterables gives
        tensors, so `i, (start, end)` binds two tensors."""
        inner = self.zipped_kinds(src) if isinstance(src, cst.Call) and dotted_name(src.func) == "zip" else None
        if inner is not None:
            return T.TENSOR_SEQ if inner and all(k in TENSORISH for k in inner) else T.UNKNOWN
        return self.element_kind(src)

    def element_of(self, comp: cst.ListComp | cst.GeneratorExp) -> T:
        """The kind of a comprehension's element (see `comprehension_scope`)."""
        return self.comprehension_scope(comp).kind(comp.elt)

    def comprehension_scope(self, comp: cst.ListComp | cst.GeneratorExp | cst.DictComp) -> TypeEnv:
        """A scope of its own with the comprehension's `for` targets bound to the elements of
        their iterables (see `element_kind` and `zipped_kinds`)."""
        scope = TypeEnv(self.info, parent=self)
        clause: cst.CompFor | None = comp.for_in
        while clause is not None:
            scope.bind(clause.target, scope.element_kind(clause.iter), scope.zipped_kinds(clause.iter))
            clause = clause.inner_for_in
        return scope

    def _attribute(self, node: cst.Attribute) -> T:
        attr = node.attr.value
        recv = node.value
        if isinstance(recv, cst.Name):
            # `out.loss`, `self.value` bound above in this function (bind)
            key = None
            env: TypeEnv | None = self
            while env is not None:
                if env._attrs_bound:  # most scopes bind no attribute: no key to build
                    key = key or f"{recv.value}.{attr}"
                    if key in env.names:
                        return env.names[key]
                if recv.value in env.names:
                    break  # the object is bound here: an attribute bound further out was another's
                env = env.parent
        if isinstance(recv, cst.Name) and recv.value == "self":
            if attr in self.self_tensors:
                return T.TENSOR
            if attr in self.self_modules:
                return T.MODULE
            if attr in self.self_str_enums:
                return T.STR_ENUM  # `self.mode = mode` with `mode=Mode.FAST` (BRK247)
            if attr in self.self_scalars or attr == "training":
                return T.SCALAR
            if attr in self.self_properties and self.returns is not None:
                return self.returns(cst.Call(func=node), self)  # the getter runs: Dynamo inlines it
            return T.UNKNOWN
        if self.holds_tensor is not None and (self.instances or self.self_sub_classes):
            if isinstance(recv, cst.Attribute) and isinstance(recv.value, cst.Name) and recv.value.value == "self":
                classes = self.self_sub_classes.get(recv.attr.value, ())
            elif isinstance(recv, cst.Subscript) and (held := self_attribute(recv.value)):
                classes = element_classes(self.self_sub_classes.get(held, ()))  # `self.meters["train"]`
            else:
                classes = [found] if isinstance(recv, cst.Name) and (found := self.instance_of(recv.value)) else ()
            if classes and self.holds_tensor(classes, attr):
                return T.TENSOR  # `self.sched.timesteps`, `sched.timesteps`: a tensor attribute of its class
            if len(classes) == 1 and self.properties_of is not None and self.returns is not None \
                    and attr in self.properties_of(classes[0]):
                return self.returns(cst.Call(func=node), self)  # `meter.avg`: the getter runs, Dynamo inlines it
        recv_kind = self.kind(recv)
        if recv_kind is T.TENSOR_SEQ and attr in ("values", "indices"):
            return T.TENSOR  # `x.max(-1).values`, `torch.topk(x, k).indices`: torch.return_types fields
        if recv_kind in TENSORISH:
            if attr in SHAPE_ATTRS:
                return T.SHAPE
            if attr in NON_TENSOR_ATTRS:
                return T.SCALAR
            if attr in TENSOR_ATTRS:
                return T.TENSOR
            return T.UNKNOWN  # a bound method or unknown attribute
        if recv_kind is T.MODULE and attr in ("weight", "bias"):
            return T.TENSOR
        if _is_config(recv):
            return T.SCALAR  # config.hidden_size, self.config.chunk_length
        name = dotted_name(node)
        if name and self.globals_ is not None and isinstance(recv, (cst.Name, cst.Attribute)) \
                and recv_kind is T.UNKNOWN and not self.is_local(name.partition(".")[0]):
            kind = self.globals_(self.info.qualify(name))  # consts.MASK: a global of another module
            if kind is not None:
                return kind
        if name and self.info.qualify(name).startswith("torch."):
            return T.SCALAR  # torch.float32, torch.nn.functional (as a value)...
        return T.UNKNOWN

    def _call(self, node: cst.Call) -> T:
        func = node.func
        if isinstance(func, cst.Attribute):
            recv_kind = self.kind(func.value)
            meth = func.attr.value
            if recv_kind is T.UNKNOWN and meth in MASK_METHODS and _elementwise_comparison(func.value):
                recv_kind = T.BOOL_TENSOR  # `(a < b).sum()`: a Python bool has no such method
            if recv_kind in TENSORISH:
                if (names := tensor_method_names()) and meth not in names:
                    return T.UNKNOWN  # a subclass's own method (`img.peek_pending_rank()`): not a tensor op
                if meth in SHAPE_METHODS:
                    return T.SHAPE
                if meth == "numpy":  # in NON_TENSOR_METHODS for the fixes: no torch tensor to rewrite
                    return T.TENSOR  # Dynamo traces the array as a tensor (torch._numpy), like NUMPY_ARRAY_FUNCS
                if meth in NON_TENSOR_METHODS:
                    return T.SCALAR
                if meth in SEQ_METHODS:
                    return T.TENSOR_SEQ
                if meth in BOOL_METHODS:
                    return T.BOOL_TENSOR
                if meth in DTYPE_SETTING_METHODS and self._bool_dtype(node, positional=meth in ("to", "type")):
                    return T.BOOL_TENSOR  # x.new_zeros(n, dtype=torch.bool), x.to(torch.bool)
                if recv_kind is T.BOOL_TENSOR and meth in DTYPE_KEEPING_METHODS and not any(
                        self.info.qualify(dotted_name(a.value) or "").startswith("torch.") for a in node.args):
                    return T.BOOL_TENSOR  # no `torch.uint8` (a dtype) among the arguments
                if meth in ("sort", "topk"):
                    return T.TENSOR_SEQ
                if f"torch.{meth}" in _TUPLE_ON_REQUEST:
                    return _tuple_on_request(node, meth, positional_from=0)
                if meth in _REDUCTION_OR_PAIR and node.args:
                    return self._reduction_or_pair(node.args)
                return T.TENSOR
            if (recv_kind is T.MODULE or is_super_call(func.value) and self.self_modules | self.self_tensors) \
                    and meth == "forward":
                return T.TENSOR  # another module's forward, or `super().forward(x)` in a module
            if recv_kind is T.MODULE and meth == "generate_square_subsequent_mask":
                return T.TENSOR  # `self.tf.generate_square_subsequent_mask(n)`: a new float mask
            if recv_kind in TENSOR_MAPS:
                value = map_value(recv_kind)
                return {"values": T.TENSOR_SEQ, "get": value, "pop": value}.get(meth, T.UNKNOWN)
            if recv_kind is T.UNKNOWN and meth in TENSOR_ONLY_METHODS:
                return T.TENSOR
            if recv_kind is T.UNKNOWN and meth == "bool" and not node.args:
                return T.BOOL_TENSOR  # `.bool()` is a tensor method (NumPy arrays and Python values have none)
        name = dotted_name(func)
        if name is None:
            return T.UNKNOWN
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            if func.attr.value in self.self_modules:
                return T.TENSOR  # a submodule call
        if isinstance(func, cst.Name) and self.lookup(func.value) is T.MODULE:
            return T.TENSOR
        qual = self.info.qualify(name)
        if qual.startswith("numpy."):
            return T.TENSOR if qual[len("numpy."):] in NUMPY_ARRAY_FUNCS else T.UNKNOWN
        if qual in TRACED_RANDOM and self.traced_random is not None:
            if self.traced_random(qual, node, self):
                return T.RANDOM  # `k = random.randint(0, 3)`: `if k == 0:` breaks (GB0170), `h[:, :k]` too (GB0124)
            return T.SCALAR  # not traced (a rule breaks at the call, BRK205/BRK266): a Python number
        if self.returns is not None and not (isinstance(func, cst.Name) and self.is_local(func.value)):
            kind = self.returns(node, self)
            if kind is not T.UNKNOWN:
                return kind
        if qual in ("tuple", "list") and len(node.args) == 1 and not node.args[0].star:
            arg = node.args[0].value
            if isinstance(arg, (cst.GeneratorExp, cst.ListComp)):
                return T.TENSOR_SEQ if self.element_of(arg) in TENSORISH else T.SCALAR
            # `list(t.unique())`: iterating a tensor gives its rows (tensors); not a NumPy call's
            # array, often built from constants Dynamo folds (`list(np.prod(scales, axis=0))`)
            numpy_call = isinstance(arg, cst.Call) and self.info.qualify(
                dotted_name(arg.func) or "").startswith("numpy.")
            return T.TENSOR_SEQ if self.kind(arg) is T.TENSOR_SEQ or (
                self.kind(arg) in TENSORISH and not numpy_call) else T.UNKNOWN
        if qual in PY_SHAPE_BUILTINS:
            return T.SHAPE if node.args and self.kind(node.args[0].value) in (
                *TENSORISH, T.TENSOR_SEQ, T.SHAPE) else T.SCALAR
        if qual in ("int", "float", "bool", "str", "repr", "round", "abs", "min", "max", "sum", "range"):
            return self._builtin_numeric(qual, node)
        if qual == "functools.reduce":
            return self._reduce(node)
        if qual.startswith("torch."):
            if qual[len("torch."):] in _REDUCTION_OR_PAIR and node.args and not node.args[0].star:
                return self._reduction_or_pair(node.args[1:])
            if qual == "torch.where" and node.args:
                return T.TENSOR if len(node.args) == 3 else T.TENSOR_SEQ if len(node.args) == 1 else T.UNKNOWN
            if qual in _TUPLE_ON_REQUEST:
                return _tuple_on_request(node, qual[len("torch."):], positional_from=1)
            if qual.endswith(".generate_square_subsequent_mask"):
                return T.TENSOR  # nn.Transformer's static method: a new float mask from a size
            kind = self._torch_call(qual)
            if kind in TENSORISH and self._bool_dtype(node, positional=False):
                return T.BOOL_TENSOR  # torch.zeros(n, dtype=torch.bool), torch.ones_like(x, dtype=torch.bool)
            if kind in TENSORISH and qual not in TORCH_FACTORIES and qual not in TENSOR_LIST_OPS and node.args and not any(
                    self.kind(a.value) in (*TENSORISH, T.TENSOR_SEQ, T.UNKNOWN) for a in node.args):
                return T.FOLDED  # torch.div(seq_len, 2) on ints/shapes
            return kind
        return T.UNKNOWN

    def _bool_dtype(self, node: cst.Call, positional: bool) -> bool:
        """Whether `node` passes `torch.bool` as its `dtype=` (or, with `positional`, as a
        positional argument: `x.to(torch.bool)`): the tensor it makes holds booleans."""
        for arg in node.args:
            if (arg.keyword is not None and arg.keyword.value == "dtype") or (positional and arg.keyword is None):
                name = dotted_name(arg.value)
                if name is not None and self.info.qualify(name) == "torch.bool":
                    return True
        return False

    def _reduction_or_pair(self, rest: Sequence[cst.Arg]) -> T:
        """`torch.max(x, *rest)` / `x.max(*rest)` (and min, median, nanmedian): a tensor when reduced
        whole (no more arguments) or taken elementwise with another tensor (`torch.max(a, b)`), a
        (values, indices) pair when given a dimension (`dim` positional or by keyword); else unknown."""
        if any(a.star for a in rest):
            return T.UNKNOWN
        if not rest:
            return T.TENSOR
        first = rest[0]
        if first.keyword is not None:
            return T.TENSOR_SEQ if first.keyword.value == "dim" else (
                T.TENSOR if first.keyword.value == "other" else T.UNKNOWN)
        kind = self.kind(first.value)
        if kind in TENSORISH:
            return T.TENSOR
        return T.TENSOR_SEQ if kind in (T.SCALAR, T.SHAPE) else T.UNKNOWN

    def _builtin_numeric(self, qual: str, node: cst.Call) -> T:
        positional = [a.value for a in node.args if a.keyword is None and not a.star]
        if qual == "sum" and positional and (self._holds_tensors(positional[0]) or (
                len(positional) > 1 and self.kind(positional[1]) in TENSORISH)):
            return T.TENSOR  # `sum(losses)` is `0 + losses[0] + ...`: a tensor
        if qual in ("max", "min") and (
                (len(positional) == 1 and len(node.args) == 1 and self._holds_tensors(positional[0]))
                or (len(positional) > 1 and all(self.kind(v) in TENSORISH for v in positional))):
            return T.TENSOR
        if qual in ("sum", "max", "min") and positional and self.kind(positional[0]) is T.UNKNOWN and not isinstance(
                positional[0], (cst.GeneratorExp, cst.ListComp)):
            return T.UNKNOWN  # of values of unknown kind: maybe tensors (read again with a call's arguments)
        kinds = {self.kind(a.value) for a in node.args}
        if qual in ("abs", "round") and kinds & set(TENSORISH):
            return T.TENSOR
        if kinds and kinds <= {T.SHAPE, T.SCALAR} and T.SHAPE in kinds and qual in ("int", "min", "max", "abs", "round", "sum"):
            return T.SHAPE
        return T.SCALAR

    def _holds_tensors(self, iterable: cst.BaseExpression) -> bool:
        """Whether iterating `iterable` gives tensors: a list of tensors, a tensor (its rows), or a
        comprehension / generator expression whose element is a tensor."""
        if isinstance(iterable, (cst.GeneratorExp, cst.ListComp)):
            return self.element_of(iterable) in TENSORISH
        return self.kind(iterable) in (T.TENSOR_SEQ, *TENSORISH)

    def _reduce(self, node: cst.Call) -> T:
        """`functools.reduce(fn, seq[, start])` over tensors, with `fn` an `operator` or `torch`
        function or a two-parameter lambda: a tensor (`reduce(operator.mul, factors)`); else unknown."""
        args = [a.value for a in node.args if a.keyword is None and not a.star]
        if len(args) not in (2, 3) or len(args) != len(node.args) or not self._holds_tensors(args[1]):
            return T.UNKNOWN
        fn = args[0]
        name = dotted_name(fn)
        qual = self.info.qualify(name) if name is not None else ""
        if qual.startswith(("operator.", "torch.")) or (
                isinstance(fn, cst.Lambda) and len(fn.params.params) == 2
                and isinstance(fn.body, (cst.BinaryOperation, cst.Call))):
            return T.TENSOR
        return T.UNKNOWN

    def _torch_call(self, qual: str) -> T:
        if qual in TORCH_SHAPE_RETURN:
            return T.SHAPE
        if qual.startswith(TORCH_STATE_QUERIES) and qual != "torch.get_rng_state":
            return T.SCALAR  # torch.is_autocast_enabled(), torch.get_autocast_dtype(...)
        if qual in TORCH_NON_TENSOR or qual in python_value_returns() or qual.startswith(TORCH_NON_TENSOR_PREFIXES):
            return T.UNKNOWN if qual.startswith("torch.utils.") else T.SCALAR
        if qual in TORCH_SEQ:
            return T.TENSOR_SEQ
        if qual in TORCH_BOOL:
            return T.BOOL_TENSOR
        last = qual.rsplit(".", 1)[-1]
        if last[:1].isupper():  # torch.nn.Linear(...), torch.Size(...), torch.float32
            return T.MODULE if qual.startswith("torch.nn.") else T.SCALAR
        if qual.startswith(("torch.nn.functional.", "torch.fft.", "torch.special.", "torch.linalg.")):
            return T.TENSOR
        if qual.count(".") == 1:
            return T.TENSOR
        return T.UNKNOWN

    def _binary(self, node: cst.BinaryOperation) -> T:
        a, b = self.kind(node.left), self.kind(node.right)
        if a in TENSORISH or b in TENSORISH:
            if isinstance(node.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)) and (
                a is T.BOOL_TENSOR or b is T.BOOL_TENSOR):
                return T.BOOL_TENSOR
            return T.TENSOR
        if T.RANDOM in (a, b):
            return T.UNKNOWN  # `random.uniform(0, 1) * 2.0`: the frame falls back there (BRK264)
        if T.FOLDED in (a, b) and {a, b} <= {T.FOLDED, T.SHAPE, T.SCALAR}:
            return T.FOLDED  # `torch.div(n, w) - 1`
        if T.SHAPE in (a, b) and {a, b} <= {T.SHAPE, T.SCALAR}:
            return T.SHAPE
        if a is T.SCALAR and b is T.SCALAR:
            return T.SCALAR
        return T.UNKNOWN

    def _comparison(self, node: cst.Comparison) -> T:
        kinds = [self.kind(node.left)] + [self.kind(c.comparator) for c in node.comparisons]
        ops = [c.operator for c in node.comparisons]
        if any(isinstance(op, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for op in ops):
            return T.SCALAR
        if any(k in TENSORISH for k in kinds):
            return T.BOOL_TENSOR
        if T.FOLDED in kinds and all(k in (T.SCALAR, T.SHAPE, T.FOLDED) for k in kinds):
            return T.FOLDED  # `torch.div(n, w) > 1`: a 0-dim bool tensor
        if T.RANDOM in kinds and all(k in (T.SCALAR, T.SHAPE, T.RANDOM) for k in kinds):
            return T.RANDOM  # `random.random() < p`: a traced comparison, a branch on it breaks
        return T.SCALAR if all(k in (T.SCALAR, T.SHAPE) for k in kinds) else T.UNKNOWN

    def _subscript(self, node: cst.Subscript) -> T:
        key = _element_key(node)
        env: TypeEnv | None = self
        while key is not None and env is not None:
            if env._attrs_bound and key in env.names:
                return env.names[key]  # `self.history[-1]` stored above in this function (bind)
            env = env.parent
        if isinstance(node.value, cst.Call) and (index := _integer_index(node)) is not None:
            elements = self.element_kinds(node.value)  # `convert(q, np.ndarray)[0]`: one element of a tuple return
            if elements is not None and -len(elements) <= index < len(elements):
                return elements[index]
        base = self.kind(node.value)
        if base in TENSOR_MAPS:
            return map_value(base)
        if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index) and isinstance(
                node.slice[0].slice.value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            return T.UNKNOWN  # `outputs["logits"]`: indexed by a string, a mapping (whatever was guessed)
        if base in TENSORISH:
            return base
        if base is T.TENSOR_SEQ:
            only = node.slice[0].slice if len(node.slice) == 1 else None
            if isinstance(only, cst.Index):
                return T.TENSOR
            return T.TENSOR_SEQ
        if base is T.SHAPE:
            return T.SHAPE
        if base is T.MODULE:
            return T.MODULE
        if len(node.slice) >= 2 and any(isinstance(e.slice, cst.Slice) for e in node.slice):
            return T.TENSOR  # x[:, 0, :]: multi-dimensional slicing is tensor (or NumPy) indexing
        return T.UNKNOWN


def _integer_index(node: cst.Subscript) -> int | None:
    """The index of `v[<integer literal>]` (`v[-1]`: -1), else None."""
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    index = node.slice[0].slice.value
    negative = isinstance(index, cst.UnaryOperation) and isinstance(index.operator, cst.Minus)
    if negative:
        index = index.expression
    if not isinstance(index, cst.Integer):
        return None
    return -int(index.evaluated_value) if negative else int(index.evaluated_value)


def _element_key(node: cst.Subscript) -> str | None:
    """"self.<attr>[<integer literal>]" for such a subscript (`self.history[-1]`), else None."""
    held = self_attribute(node.value)
    index = _integer_index(node) if held else None
    return None if index is None else f"self.{held}[{index}]"


def _is_config(node: cst.BaseExpression) -> bool:
    """`config`, `cfg`, `self.config`: objects holding hyperparameters (Python values)."""
    if isinstance(node, cst.Name):
        return node.value in CONFIG_NAMES
    return (isinstance(node, cst.Attribute) and node.attr.value in CONFIG_NAMES
            and isinstance(node.value, cst.Name) and node.value.value == "self")


def local_names(fn: cst.FunctionDef) -> set[str]:
    """Names a def binds in its own scope (parameters, assignment and loop targets, imports,
    nested defs and classes; not those it declares `global` or `nonlocal`): they shadow globals."""
    out = {p.name.value for p in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params)}
    for star in (fn.params.star_arg, fn.params.star_kwarg):
        if isinstance(star, cst.Param):
            out.add(star.name.value)
    declared: set[str] = set()
    stack: list[cst.CSTNode] = [fn.body]
    while stack:
        node = stack.pop()
        targets: list[cst.CSTNode] = []
        if isinstance(node, cst.AssignTarget):
            targets.append(node.target)
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign, cst.NamedExpr)):
            targets.append(node.target)
        elif isinstance(node, cst.For):
            targets.append(node.target)
        elif isinstance(node, cst.AsName):
            targets.append(node.name)
        elif isinstance(node, (cst.Global, cst.Nonlocal)):
            declared.update(n.name.value for n in node.names)
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            out.add(node.name.value)
            continue  # their bodies are scopes of their own
        elif isinstance(node, (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)):
            continue
        for target in targets:
            for name in target_names(target):
                out.add(name)
        stack.extend(children(node))
    return out - declared


def target_names(target: cst.CSTNode) -> list[str]:
    """The names an assignment or loop target binds (`a`, `a, (b, *c)`; not `x.attr`, `x[i]`)."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for el in target.elements for n in target_names(el.value)]
    if isinstance(target, cst.StarredElement):
        return target_names(target.value)
    return []


def join_kinds(kinds: list[T]) -> T:
    """The kind of a value that is one of `kinds` (a function's returns): a tensor on some paths
    and a Python value on the others is a tensor, as for `a if c else b`; anything else unknown."""
    if not kinds:
        return T.SCALAR  # falls off the end: None
    distinct = set(kinds)
    if len(distinct) == 1:
        return kinds[0]
    tensors = distinct & set(TENSORISH)
    if tensors and distinct - tensors <= {T.SCALAR, T.SHAPE}:
        return T.BOOL_TENSOR if tensors == {T.BOOL_TENSOR} else T.TENSOR
    return T.UNKNOWN
