"""The project index: imports, functions, classes and calls of every scanned module.

Built with CPython's `ast` (a C parser, several times cheaper than libcst) into small picklable
summaries, so that indexing runs in worker processes, caches by content hash, and compile
regions can follow calls across files before libcst parses the few files that hold regions.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import Any

COMPILING_PREDICATES = {
    "torch.compiler.is_compiling", "torch._dynamo.is_compiling",
    "torch.compiler.is_dynamo_compiling", "torch._dynamo.external_utils.is_compiling",
    "torch._utils.is_compiling",
}
COMPILING_SUFFIXES = ("is_torchdynamo_compiling", "is_dynamo_compiling", "is_compiling")
# Predicates that are False under Dynamo: code under them is not traced.
NOT_COMPILING_PREDICATES = {"torch.jit.is_scripting", "torch.jit.is_tracing", "torch.onnx.is_in_onnx_export"}
# Calls that return None in a compiled region: DataLoader worker info exists only in a worker
# process, and Dynamo resumes after the call's graph break (BRK240) with that None.
NONE_UNDER_DYNAMO = {"torch.utils.data.get_worker_info", "torch.utils.data._utils.worker.get_worker_info",
                     "torch.utils.data.dataloader.get_worker_info"}
DISABLE_DECORATORS = {"torch.compiler.disable", "torch._dynamo.disable", "torch._disable_dynamo",
                      "torch._dynamo.decorators.disable"}
DISALLOW_CALLS = {"torch._dynamo.disallow_in_graph", "torch._dynamo.decorators.disallow_in_graph"}
COMPILE_CALLS = {"torch.compile", "torch._dynamo.optimize", "torch.compiler.compile"}
# Markers whose function Dynamo calls without tracing its body and without a graph break
# (measured on 2.13 with a print in the body: one graph, no break).
UNTRACED_MARKERS = {"torch.compiler.nonstrict_trace", "torch._dynamo.nonstrict_trace",
                    "torch._dynamo.decorators.nonstrict_trace", "torch.compiler.allow_in_graph",
                    "torch._dynamo.allow_in_graph", "torch._dynamo.decorators.allow_in_graph",
                    "torch._dynamo.assume_constant_result", "torch._dynamo.decorators.assume_constant_result",
                    "torch.compiler.assume_constant_result", "torch._dynamo.decorators.leaf_function",
                    "torch.compiler.leaf_function", "torch._dynamo.leaf_function"}
# Decorators that make a method run on attribute access: Dynamo traces the getter (measured on 2.13).
PROPERTY_DECORATORS = {"property", "functools.cached_property", "cached_property"}
# nn.Module methods that return the module itself: `Model().to(device)` is still a `Model`.
SELF_RETURNING = {"to", "cuda", "cpu", "eval", "train", "half", "float", "double", "bfloat16",
                  "requires_grad_", "to_empty", "share_memory", "type", "xpu", "mps"}
# The tensor types an annotation names (`Tensor`, `torch.FloatTensor`): read by tensors.annotation_kind
# and by the index for class fields (_tensor_annotation)
TENSOR_ANNOTATIONS = frozenset({"Tensor", "FloatTensor", "LongTensor", "BoolTensor", "IntTensor",
                                "HalfTensor", "DoubleTensor", "ByteTensor", "BFloat16Tensor"})
# torch functions that make a new tensor (tensors.TORCH_FACTORIES is this set).
TORCH_FACTORIES = frozenset({
    "torch.tensor", "torch.as_tensor", "torch.zeros", "torch.ones", "torch.empty", "torch.full",
    "torch.arange", "torch.range", "torch.linspace", "torch.logspace", "torch.eye", "torch.rand",
    "torch.randn", "torch.randint", "torch.randperm", "torch.scalar_tensor", "torch.from_numpy",
    "torch.asarray"})
# Tensor methods that return a tensor whatever their arguments: a factory's `.to(device)` or
# `.float()` is still a tensor (`Tensor.type()` without arguments returns a string: not here).
# module_globals uses it too.
TENSOR_CONVERSIONS = frozenset({
    "to", "float", "double", "half", "bfloat16", "long", "int", "short", "bool", "cuda", "cpu",
    "clone", "detach", "contiguous", "flip", "view", "reshape", "unsqueeze", "squeeze", "t",
    "transpose", "permute", "expand", "repeat", "flatten", "requires_grad_", "fill_", "zero_", "tril",
    "triu", "exp", "log", "sqrt", "abs", "neg", "cumsum", "sum", "mean"})
# torch functions that return one tensor whatever their arguments: with TORCH_FACTORIES, what an
# attribute assigned in any method must come from to count as a tensor (`_assigned_tensor_attrs`).
TORCH_TENSOR_OPS = frozenset({
    "torch.cat", "torch.concat", "torch.concatenate", "torch.stack", "torch.flip", "torch.exp",
    "torch.log", "torch.sqrt", "torch.cumprod", "torch.cumsum", "torch.clamp", "torch.pow",
    "torch.sigmoid", "torch.maximum", "torch.minimum", "torch.zeros_like", "torch.ones_like",
    "torch.full_like", "torch.empty_like", "torch.randn_like", "torch.rand_like", "torch.lerp",
    "torch.sin", "torch.cos", "torch.exp2", "torch.log1p", "torch.expm1", "torch.outer",
    "torch.matmul", "torch.einsum", "torch.abs", "torch.square", "torch.round", "torch.floor",
    "torch.ceil", "torch.flatten", "torch.reshape", "torch.roll", "torch.diff"})
_DYNAMO_CONFIG = re.compile(r"_dynamo(?:\.config|\s+import\s*(?:\([^)]*|[^\n]*)\bconfig\b|\s+as\s)")
_COMPILE_OPTION = re.compile(r"(?<!\w)(?:fullgraph|nopython|dynamic)\s*=")
_COMPILE_CALL = re.compile(r"(?<![\w])compile\s*\(")
_OPTIMIZE_CALL = re.compile(r"\boptimize\s*\(")


# Heads of dotted names that are library functions, not project ones (`torch.relu`, `F.gelu`, `np.exp`)
_LIBRARY_HEADS = ("torch", "F", "nn", "np", "math")


def _converted_call(call: ast.Call) -> ast.Call:
    """The call a chain of tensor conversions starts from: `torch.from_numpy(a)` for
    `torch.from_numpy(a).to(device).long()`; `call` itself when it is not such a chain."""
    while (isinstance(call.func, ast.Attribute) and call.func.attr in TENSOR_CONVERSIONS
           and isinstance(call.func.value, ast.Call)):
        call = call.func.value
    return call


def ast_dotted(node: ast.AST | None) -> str | None:
    """`a.b.c` for a Name/Attribute chain, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}
# Fields that never hold a node, in any ast class that has them (`Name.id`, `Constant.value`,
# `Attribute.attr`...), and `ctx`: child_nodes skips them.
_LEAF_FIELDS = frozenset({"ctx", "id", "attr", "arg", "kind", "level", "lineno", "type_comment", "conversion",
                          "is_async", "simple"})
_CHILD_FIELDS[ast.Constant] = ()
TENSOR_CLASSES = frozenset({"torch.Tensor", "torch._tensor.Tensor"})


def child_nodes(node: ast.AST) -> list[ast.AST]:
    """`ast.iter_child_nodes(node)` as a list, in the same order, without the `ctx` markers
    (Load/Store: no walker here looks at them) and without its two generators per node: the
    index walks every node of every file (CPU s on transformers: see README "Speed")."""
    cls = type(node)
    names = _CHILD_FIELDS.get(cls)
    if names is None:
        names = _CHILD_FIELDS[cls] = tuple(n for n in cls._fields if n not in _LEAF_FIELDS)
    out: list[ast.AST] = []
    for name in names:
        value = getattr(node, name, None)
        if isinstance(value, ast.AST):
            out.append(value)
        elif isinstance(value, list):
            out.extend([item for item in value if isinstance(item, ast.AST)])
    return out


def walk_nodes(node: ast.AST) -> list[ast.AST]:
    """`list(ast.walk(node))` (the same breadth-first order) without the `ctx` markers, built on
    child_nodes: several times fewer Python-level calls per node."""
    nodes = [node]
    i = 0
    while i < len(nodes):
        nodes.extend(child_nodes(nodes[i]))
        i += 1
    return nodes


def module_name_for(path: Path) -> str:
    """The dotted module name of `path`, walking up while packages have `__init__.py`."""
    parts = [path.stem] if path.stem != "__init__" else []
    parent = path.parent
    while (parent / "__init__.py").is_file():
        parts.append(parent.name)
        if parent.parent == parent:
            break
        parent = parent.parent
    return ".".join(reversed(parts)) or path.stem


@dataclass
class CallRef:
    """A call inside a function: `kind` is name (a dotted name), self (`self.m()`), super, or
    registry (`LOSSES[key](...)`: `name` is the table as spelled, ModuleInfo.registries)."""

    kind: str
    name: str
    args: tuple[str, ...] = ()  # positional arguments that are names (`f`, `self.m`), "" for others
    kwargs: tuple[tuple[str, str], ...] = ()  # (keyword, name) for keyword arguments that are names (`fn=helper`)


@dataclass
class Comprehension:
    """A list/set/dict comprehension (Python <= 3.11: a frame of its own) or a generator
    expression (a generator frame on every Python), for frames Dynamo skips.

    `references_module` when its body names `self` or a torch module, or reads a local of the
    enclosing def that holds a tensor (tensor_locals): the values that make Dynamo's
    `has_tensor_in_frame` trace the comprehension's frame when it runs on its own.
    """

    line: int
    offset: int  # ast's: UTF-8 bytes from the line start, 0-based
    end_line: int
    end_offset: int
    references_module: bool


@dataclass
class ComprehensionCalls:
    """A list/set/dict comprehension of a def's own code (Python <= 3.11: a frame of its own)
    over an iterator Dynamo cannot rebuild, and the calls its body makes (frames.py, BRK410).

    `over`: "view" (`d.items()`, `.values()`, `.keys()`), "zip", or "self.<attr>" (decided by
    the class: a `ModuleList`, `Sequential` or `ModuleDict` iterates a dict view of its
    submodules); for a generator expression consumed step by step (`sum(...)`, not `list(...)`,
    BRK411): "generator:list" (a local bound once to a list) or "generator:self.<attr>"
    (frames.py decides by the class: a plain list); `calls`: (line, call) of the body's calls; `element_attrs`: the `self.<attr>`
    whose elements the body calls (`m(x) for m in self.layers`, `self.heads[k](x)`)."""

    span: Comprehension
    over: str
    calls: tuple[tuple[int, CallRef], ...]
    element_attrs: tuple[str, ...] = ()
    straight: bool = False  # in a statement of the def's own body, not under an `if`, loop, `try` or `with`


@dataclass
class SkipBlock:
    """A block after whose graph break Dynamo cannot resume the frame (measured on torch 2.13).

    `kind`: "try" (a try body: Dynamo compiles up to the last resumable point before the
    statement, or skips the whole frame when the graph is empty there), "loop" (a `for`/`while`
    body: "graph break in loop", the whole frame is skipped), "genexpr" (a generator expression:
    a break in it, `sum(t.sum().item() for t in ts)`, `any(t.max() > 1 for t in ts)`, makes the
    rest of the frame run eagerly; measured on 2.13 and 2.15), "with" (the body of a `with` whose
    context manager is `ctx`, a dotted name called: only torch's own context managers resume,
    so the cross-file pass decides with the project index); its body spans lines `body_first`
    to `body_last` (the calls there are the DefFrame's `calls` on those lines); `ops_before` (try)
    when statements before it may put operations in the graph.
    """

    kind: str
    line: int
    body_first: int
    body_last: int
    ctx: str = ""
    ops_before: bool = False
    loop_over: tuple[str, str] = ("", "")  # `for layer in self.layers` / `enumerate(self.layers)`: (layer, layers)
    # line spans of the other arm of each `if` around the block (`if a: <loop> else: <these>`): code
    # that never runs in the call that reached the block, so not code run eagerly after its break
    exclusive: tuple[tuple[int, int], ...] = ()
    # "genexpr": the expression's columns (UTF-8 offsets, as ast gives them) on its first and last line
    columns: tuple[int, int] = (-1, -1)


@dataclass
class DefFrame:
    """A def (a function or a def nested in it) holding blocks that Dynamo cannot resume after:
    a graph break there makes Dynamo run the rest of this frame eagerly, and the frames that
    code creates (comprehensions, generator expressions, callees) then start on their own.
    `nested` are the spans of its nested defs and lambdas (frames of their own); `param_lines`
    where it calls a parameter of an enclosing def (a decorator's wrapper calling the function
    it wraps)."""

    def_line: int
    def_end: int
    blocks: list[SkipBlock] = field(default_factory=list)
    comprehensions: list[Comprehension] = field(default_factory=list)
    genexprs: list[Comprehension] = field(default_factory=list)
    # (first line, last line, start column offset): -1 for a def, whose first line is all its own;
    # a lambda's column, since its first line's code before it is this frame's
    # (`sorted(d.items(), key=lambda kv: kv[1].mean())` breaks here, not in the lambda)
    nested: list[tuple[int, int, int]] = field(default_factory=list)
    calls: list[tuple[int, CallRef]] = field(default_factory=list)  # its own calls, with their lines
    param_lines: list[int] = field(default_factory=list)  # calls of an enclosing def's parameter (a wrapper's)


@dataclass
class FunctionInfo:
    """A function or method: decorators (qualified), calls (untraced branches pruned), position."""

    name: str
    qualname: str  # within the module: "f", "Class.method"
    occurrence: int  # 0 unless the same qualname is defined again (if/else variants)
    line: int  # first line: the first decorator's, else the `def`'s
    decorators: list[str] = field(default_factory=list)
    calls: list[CallRef] = field(default_factory=list)
    end_line: int = 0
    indent: int = 0  # columns of indentation of the `def` (code points)
    frames: list[DefFrame] = field(default_factory=list)  # this def and nested defs with SkipBlocks
    params: list[str] = field(default_factory=list)  # positional parameter names, `self` included
    required: int = 0  # how many of them have no default
    self_reads: set[str] = field(default_factory=set)  # `self.x` read (methods called included)
    sub_reads: set[str] = field(default_factory=set)  # "x.y" for `self.x.y` read (a property of what `self.x` holds)
    # "v.y" for `v.y` read with `v` a module-level name bound to a call or imported by name (a
    # property of a module-level instance, `sched.init_sigma` with `sched = Scheduler()`)
    global_reads: set[str] = field(default_factory=set)
    attr_stores: set[str] = field(default_factory=set)  # `obj.attr = x` targets, dotted (`self.state.v`)
    def_line: int = 0  # the `def` line (`line` is the first decorator's)
    is_generator: bool = False  # its own body yields: called, it starts a generator frame
    returns: str = ""  # the return annotation's source (`Tuple[Tensor, Tensor]`), "" when none
    # a function with a return annotation: its parameters' annotations (source), to bind the
    # TypeVars of the return from a call's arguments (call_sites._generic_return)
    param_annotations: dict[str, str] = field(default_factory=dict)
    loop_attrs: dict[str, str] = field(default_factory=dict)  # `for layer in self.layers`: layer -> "layers"
    # a module-level factory: the class every `return` builds (`return Net(d)`, `m = Net(d); return m`)
    returned_class: str = ""
    # a module-level factory of a closure: the qualname of the nested def every `return` gives
    # (`def make(s): def step(x): ...; return step` -> "make.step")
    returned_def: str = ""
    # locals holding an instance by their binding (`sched = Scheduler(...)`, `sched: Scheduler`):
    # name -> the class as the module spells it (`_local_instances`); their method calls are
    # recorded as calls of `Class.method`, which regions resolve on the project class
    local_classes: dict[str, str] = field(default_factory=dict)
    rebound: set[str] = field(default_factory=set)  # parameters the def's own body binds again
    # locals bound only to a call of one imported function (`m = build_meter()`): name -> that
    # function as spelled; links.link_instances reads what it builds
    factory_locals: dict[str, str] = field(default_factory=dict)
    # `m = Meter()` (or a factory call) then `m.update(x)` in straight-line code of this def:
    # (local, method, line of the binding, line of the call, calls made in between)
    # (_built_calls; frames.py, BRK409)
    built_calls: list[tuple[str, str, int, int, tuple]] = field(default_factory=list)
    # comprehensions of its own code over iterators Dynamo cannot rebuild, with their calls (BRK410)
    comprehension_calls: list[ComprehensionCalls] = field(default_factory=list)
    # parameters whose default is a member written `Cls.MEMBER` (`mode: BlendMode | str =
    # BlendMode.CONSTANT`): parameter -> that member, qualified; whether `Cls` is a `str` enum is the
    # region pass's question (RegionFinder.member_params, BRK247)
    member_defaults: dict[str, str] = field(default_factory=dict)
    # None when its own code may put an operation in an FX graph (_quiet_calls); else the project
    # calls it makes, which must not either for a call of it to trace no operation (frames.py, BRK412)
    quiet_calls: tuple[CallRef, ...] | None = None
    # when quiet_calls is not None: its own comprehensions that Dynamo traces as frames of their
    # own over an iterator it cannot step (BRK412)
    quiet_comprehensions: list[Comprehension] = field(default_factory=list)


@dataclass
class ClassInfo:
    """A class: its bases (qualified), methods, and what `__init__` stores on `self`."""

    name: str
    qualname: str  # module-qualified, e.g. "pkg.mod.Block"
    bases: list[str] = field(default_factory=list)
    methods: dict[str, FunctionInfo] = field(default_factory=dict)
    submodules: dict[str, list[str]] = field(default_factory=dict)  # attr -> qualified class names
    tensor_attrs: set[str] = field(default_factory=set)  # parameters and buffers
    scalar_attrs: set[str] = field(default_factory=set)  # python values set in __init__
    numeric_attrs: set[str] = field(default_factory=set)  # int/float literals set in __init__
    buffer_attrs: set[str] = field(default_factory=set)  # `self.x = nn.Buffer(...)`
    # `self.x = helper` / `functools.partial(helper, ...)` / `self.m` in any method: attr -> the
    # qualified functions (or "self.m") a call `self.x(...)` runs
    callable_attrs: dict[str, list[str]] = field(default_factory=dict)
    # class-level `R = np.random.RandomState()`: name -> the qualified callee of its value
    class_calls: dict[str, str] = field(default_factory=dict)
    # `self.mode = mode` (`mode=Mode.FAST`) or `self.mode = Mode.FAST` in `__init__`: attr ->
    # (the parameter stored, "" for a member written; the default or member, qualified), for the
    # attributes that hold a `str` enum member (ProjectIndex.str_enum_attrs, BRK247)
    member_attrs: dict[str, tuple[str, str]] = field(default_factory=dict)
    # attributes `__init__` stores from a parameter annotated `str`, `int` or `bool`: Python values
    # (read by BRK412's quiet functions only)
    python_attrs: set[str] = field(default_factory=set)


@dataclass
class ModuleInfo:
    """One scanned file's index entry (picklable; no syntax tree)."""

    path: Path
    name: str
    imports: dict[str, str] = field(default_factory=dict)  # local name -> qualified name
    functions: dict[str, FunctionInfo] = field(default_factory=dict)
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    module_vars: dict[str, str] = field(default_factory=dict)  # name -> callee of its value ("" if none)
    disabled: set[str] = field(default_factory=set)  # qualified names of disabled functions
    nonrecursive: set[str] = field(default_factory=set)  # disabled with recursive=False (also in disabled)
    untraced: set[str] = field(default_factory=set)  # nonstrict_trace, allow_in_graph, ... (UNTRACED_MARKERS)
    disallowed: set[str] = field(default_factory=set)  # torch functions given to disallow_in_graph (process-wide)
    rebound_globals: set[str] = field(default_factory=set)  # module scalars that get re-bound
    var_classes: dict[str, str] = field(default_factory=dict)  # `model = Model()` anywhere
    var_factory_calls: dict[str, str] = field(default_factory=dict)  # `model = build(cfg)` anywhere -> `pkg.build`
    compile_targets: list[str] = field(default_factory=list)  # dotted names given to torch.compile
    compiled_aliases: dict[str, str] = field(default_factory=dict)  # `fast = torch.compile(step)`: fast -> step
    # `self.step = torch.compile(self._step)` in a class: `Trainer.step` -> `Trainer._step`
    compiled_attrs: dict[str, str] = field(default_factory=dict)
    # function registries: a module-level dict display of functions (`LOSSES = {"l1": l1,
    # "huber": huber}`) -> the qualified functions it holds; a name bound to one of its entries
    # (`criterion = LOSSES[cfg["loss"]]`) -> the same list (`_registry_values`)
    registries: dict[str, list[str]] = field(default_factory=dict)
    # module-level defs that store the function they decorate in a module-level dict (`def
    # register(name): def deco(fn): LOSSES[name] = fn; return fn; return deco`) -> that dict's name
    registrars: dict[str, str] = field(default_factory=dict)
    # `LOSSES["mse"] = mse` at module level with `LOSSES` imported: (its qualified name, the function's)
    registry_items: list[tuple[str, str]] = field(default_factory=list)
    example_targets: list[str] = field(default_factory=list)  # fns yielded by breakscan_examples
    # module-level calls passing a name (`apply_twice(noisy_act, x)`): a compiled callee traces it
    top_calls: list[CallRef] = field(default_factory=list)
    compiling_helpers: set[str] = field(default_factory=set)  # `def f(): return is_compiling()`
    # `def make(): return torch.compiler.disable(f)`: function name -> trace_marker of what it returns
    marker_returns: dict[str, str] = field(default_factory=dict)
    dynamo: Any = None  # dynamo_settings.FileSettings: what the file does to Dynamo's settings
    global_kinds: dict[str, str] = field(default_factory=dict)  # module_globals: `MASK = torch.ones(3)` -> "tensor"
    # module_globals: `model = Net()` (bound once) -> the called class, qualified; a module when it is one
    global_instances: dict[str, str] = field(default_factory=dict)
    # (def, its local_classes, its calls) before links.link_instances changed them, to restore
    unlinked: list = field(default_factory=list)
    # the last part of every name called with arguments, in defs or at module level (`step` of
    # `engine.step(x)`), so links.link_instances skips the modules that call none it looks for
    called_names: frozenset[str] = frozenset()
    # `Compose([Flip(), Noise()])` anywhere: (class, argument position or keyword, classes built in that argument)
    constructions: list[tuple[str, int | str, tuple[str, ...]]] = field(default_factory=list)
    # module_globals: `model = build(cfg)` (bound once) -> the called function, qualified (ProjectIndex.built_class)
    global_factory_calls: dict[str, str] = field(default_factory=dict)
    foreign_stores: set[str] = field(default_factory=set)  # `consts.MASK = ...`: qualified globals it re-binds
    # `OptTensor = Optional[Tensor]`: module-level type aliases -> their source ("" when bound twice differently)
    type_aliases: dict[str, str] = field(default_factory=dict)
    # `T = TypeVar("T", bound=...)`: module-level type variables (the value is always True)
    type_vars: dict[str, bool] = field(default_factory=dict)

    def qualify(self, name: str) -> str:
        """Resolve a dotted local name through imports and local definitions."""
        head, _, rest = name.partition(".")
        if head in self.imports:
            base = self.imports[head]
        elif head in self.functions or head in self.classes or head in self.module_vars:
            base = f"{self.name}.{head}"
        else:
            base = head  # a builtin or unknown global
        return f"{base}.{rest}" if rest else base

    def all_functions(self) -> list[tuple[ClassInfo | None, FunctionInfo]]:
        """Module functions and class methods with their class."""
        out: list[tuple[ClassInfo | None, FunctionInfo]] = [(None, f) for f in self.functions.values()]
        for cls in self.classes.values():
            out.extend((cls, m) for m in cls.methods.values())
        return out


def _returns_compiling(info: ModuleInfo, node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A project helper whose body is `return <is_compiling predicate>()` (docstring allowed)."""
    body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    return (len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None
            and compiling_guard(info, body[0].value) is True)


def compiling_guard(info: ModuleInfo, test: ast.AST) -> bool | None:
    """True/False when `test` is known under Dynamo (`is_compiling()` and friends), else None.
    `a or b` / `a and b` are known when the operands Python evaluates, left to right, decide it
    (`is_compiling() or <anything>` is True); `get_worker_info() is None` is True (NONE_UNDER_DYNAMO)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = compiling_guard(info, test.operand)
        return None if inner is None else not inner
    if isinstance(test, ast.Call) and not test.args:
        name = ast_dotted(test.func)
        return None if name is None else predicate_value(info, name)
    if isinstance(test, ast.BoolOp):
        deciding = isinstance(test.op, ast.Or)  # the operand value that ends the evaluation
        for value in test.values:
            known = compiling_guard(info, value)
            if known is None:
                return None
            if known is deciding:
                return deciding
        return not deciding
    if (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.IsNot))
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None
            and isinstance(test.left, ast.Call) and not test.left.args and not test.left.keywords):
        name = ast_dotted(test.left.func)
        if name is not None and info.qualify(name) in NONE_UNDER_DYNAMO:
            return isinstance(test.ops[0], ast.Is)
    return None


_GUARD_TESTS = (ast.Call, ast.UnaryOp, ast.BoolOp, ast.Compare)  # the tests compiling_guard can know


def live_statements(info: ModuleInfo, body: list[ast.stmt]) -> list[ast.stmt]:
    """`body` up to the first `if` whose test is known under Dynamo (compiling_guard) and whose
    taken arm ends in `return` or `raise`: Dynamo never runs the statements after it
    (`if torch.jit.is_scripting() or is_compiling(): return fast(x)` then `return safe(x)`)."""
    for i, stmt in enumerate(body):
        if type(stmt) is ast.If and isinstance(stmt.test, _GUARD_TESTS):
            known = compiling_guard(info, stmt.test)
            arm = stmt.body if known else stmt.orelse
            if known is not None and arm and type(arm[-1]) in (ast.Return, ast.Raise):
                return body[:i + 1]
    return body


def deciding_operands(info: ModuleInfo, node: ast.BoolOp) -> list[ast.expr]:
    """The operands of `a or b or c` Python evaluates under Dynamo: up to the first whose
    known value ends the chain (`is_compiling() or torch.xpu.is_current_stream_capturing()`:
    only the first)."""
    deciding = isinstance(node.op, ast.Or)
    for i, value in enumerate(node.values):
        if compiling_guard(info, value) is deciding:
            return node.values[:i + 1]
    return node.values


def predicate_value(info: ModuleInfo, name: str, helpers: set[str] | frozenset[str] = frozenset()) -> bool | None:
    """The value under Dynamo of calling `name()` with no arguments: True for `is_compiling()`
    and friends (and project `helpers`, qualified names, or this module's own), False for
    `torch.jit.is_scripting()` and the like, None when unknown. Shared by the `ast` and
    libcst twins of `compiling_guard`."""
    qual = info.qualify(name)
    if (qual in COMPILING_PREDICATES or name.rsplit(".", 1)[-1] in COMPILING_SUFFIXES
            or name in info.compiling_helpers or qual in helpers):
        return True
    if qual in NOT_COMPILING_PREDICATES:
        return False
    return None


def trace_marker(info: ModuleInfo, node: ast.AST) -> str | None:
    """How Dynamo treats a function wrapped by the decorator or call `node`: "disable"
    (`torch.compiler.disable`: a graph break at the call, nothing below traced), "nonrecursive"
    (`disable(recursive=False)`: a graph break at the call, only that frame skipped, its callees
    traced as frames of their own), "untraced" (UNTRACED_MARKERS: called without a break, body
    not traced), else None. Measured on torch 2.13 (torch/_dynamo/decorators.py)."""
    func = node.func if isinstance(node, ast.Call) else node
    name = ast_dotted(func)
    if name is None:
        return None
    qual = info.qualify(name)
    if qual in DISABLE_DECORATORS:
        if isinstance(node, ast.Call) and any(
                k.arg == "recursive" and isinstance(k.value, ast.Constant) and k.value.value is False
                for k in node.keywords):
            return "nonrecursive"
        return "disable"
    if qual == "torch._dynamo.decorators.skip":  # skip_code: like disable(recursive=False)
        return "nonrecursive"
    if qual in UNTRACED_MARKERS:
        return "untraced"
    return None


def module_expr(info: ModuleInfo, node: ast.AST) -> ast.AST:
    """`node` without trailing self-returning nn.Module calls: `Model().to(dev).eval()` -> `Model()`."""
    while (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
           and node.func.attr in SELF_RETURNING and isinstance(node.func.value, (ast.Call, ast.Name, ast.Attribute))):
        node = node.func.value
    return node


def _resolve_relative(module: str, is_package: bool, level: int, target: str | None) -> str:
    parts = module.split(".")
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: len(parts) - (level - 1)]
    if target:
        parts.append(target)
    return ".".join(p for p in parts if p)


class _Indexer:
    """One pass over a module's statements (and function bodies for calls)."""

    def __init__(self, info: ModuleInfo, source: str) -> None:
        self.info = info
        self.source = source
        self.seen: dict[str, int] = {}
        self.nested_seen: set[int] = set()  # ids of the nested defs indexed (nested_def)
        self.literal_assigns: dict[str, int] = {}
        self.globals_declared: set[str] = set()
        self.instance_names: frozenset[str] = frozenset()  # module-level names that may hold an instance

    def imports(self, stmt: ast.stmt) -> None:
        info = self.info
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    info.imports[alias.asname] = alias.name
                else:
                    head = alias.name.split(".")[0]
                    info.imports[head] = head
        elif isinstance(stmt, ast.ImportFrom):
            mod = stmt.module
            if stmt.level:
                mod = _resolve_relative(info.name, info.path.name == "__init__.py", stmt.level, mod)
            if not mod:
                return
            for alias in stmt.names:
                if alias.name != "*":
                    info.imports[alias.asname or alias.name] = f"{mod}.{alias.name}"

    def statements(self, body: list[ast.stmt], cls: ClassInfo | None = None) -> None:
        for stmt in body:
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                self.imports(stmt)
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.function(stmt, cls)
            elif isinstance(stmt, ast.ClassDef) and cls is None:
                self.klass(stmt)
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and cls is None:
                self.module_assign(stmt)
            elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and cls is None:
                self.disallow(stmt.value)
            elif isinstance(stmt, (ast.If, ast.Try)) or type(stmt).__name__ == "TryStar":
                for block in (stmt.body, getattr(stmt, "orelse", []), getattr(stmt, "finalbody", [])):
                    self.statements(block, cls)
                for handler in getattr(stmt, "handlers", []):
                    self.statements(handler.body, cls)

    def _unpartial(self, value: ast.AST | None) -> ast.AST | None:
        """The function of `functools.partial(f, ...)` (what calling the partial runs); `value`
        itself for anything else."""
        if isinstance(value, ast.Call) and value.args \
                and self.info.qualify(ast_dotted(value.func) or "") == "functools.partial":
            return value.args[0]
        return value

    def _wraps_compile(self, value: ast.AST | None) -> bool:
        """Whether a module-level value is `torch.compile` itself or `functools.partial` of it:
        the name it binds compiles what it is applied to, as a decorator or a call."""
        value = self._unpartial(value)
        name = ast_dotted(value) if isinstance(value, (ast.Name, ast.Attribute)) else None
        return name is not None and self.info.qualify(name) == "torch.compile"

    def _registry_values(self, value: ast.AST | None) -> list[str] | None:
        """The qualified functions a module-level value dispatches to by key: a dict display
        whose values name functions (`{"l1": l1, "huber": functools.partial(huber, delta=2)}`),
        or an entry of a registry the module bound before (`LOSSES[cfg["loss"]]`). Calling
        `LOSSES[key](...)` runs one of them, which Dynamo inlines (the key is a constant while
        tracing). None for any other value."""
        if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name):
            held = self.info.registries.get(value.value.id)
            if held is None and value.value.id in self.info.imports:  # read when the project is indexed
                return [f"reg:{self.info.qualify(value.value.id)}"]
            return list(held) if held is not None else None
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict" \
                and not value.args and not value.keywords:
            return []  # `LOSSES = dict()`: filled by item assignments or a decorator
        if not isinstance(value, ast.Dict) or None in value.keys:
            return None
        if not value.values:
            return []  # `LOSSES = {}`: filled by item assignments or a decorator
        found: list[str] = []
        for v in map(self._unpartial, value.values):
            name = ast_dotted(v) if isinstance(v, (ast.Name, ast.Attribute)) else None
            if name is None:
                if isinstance(v, ast.Lambda):
                    continue  # no def to check, but the other entries still are the dispatch's
                return None  # a dict of data (`{"lr": 1e-3}`), not of functions
            qualified = self.info.qualify(name)
            if qualified not in found:
                found.append(qualified)
        return found or None

    def module_assign(self, stmt: ast.Assign | ast.AnnAssign) -> None:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        value = stmt.value
        callee = ""
        if isinstance(value, ast.Call):
            callee = self.info.qualify(ast_dotted(value.func) or "")
        wraps_compile = self._wraps_compile(value)
        for target in targets:
            if isinstance(target, ast.Name):
                name = target.id
                if wraps_compile:  # `compile_eager = functools.partial(torch.compile, backend=...)`
                    self.info.imports[name] = "torch.compile"
                    continue
                self.info.module_vars[name] = callee
                if (held := self._registry_values(value)) is not None:
                    self.info.registries[name] = held
                else:
                    self.info.registries.pop(name, None)  # bound again to something else
                if callee in ("typing.TypeVar", "typing_extensions.TypeVar"):
                    self.info.type_vars[name] = True
                alias = _type_alias(self.info, value)
                if alias is not None or name in self.info.type_aliases:
                    known = self.info.type_aliases.get(name, alias)
                    self.info.type_aliases[name] = alias if alias == known and alias is not None else ""
                self.mark(f"{self.info.name}.{name}", value)  # f = torch.compiler.disable(g)
                if isinstance(value, ast.Constant) and isinstance(value.value, (int, float, str, bool)) \
                        or name in self.literal_assigns:
                    self.literal_assigns[name] = self.literal_assigns.get(name, 0) + 1
            elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
                    and isinstance(value, (ast.Name, ast.Attribute)) and (fn := ast_dotted(value)):
                table = target.value.id  # `LOSSES["huber"] = huber`
                if table in self.info.registries:
                    if self.info.qualify(fn) not in self.info.registries[table]:
                        self.info.registries[table].append(self.info.qualify(fn))
                elif table in self.info.imports:  # a registry of another module (ProjectIndex.registry)
                    self.info.registry_items.append((self.info.qualify(table), self.info.qualify(fn)))
            elif isinstance(target, ast.Attribute) and isinstance(value, ast.Call):
                owner = ast_dotted(target.value)  # Class.method = torch.compiler.disable(Class.method)
                if owner and owner.split(".")[0] in self.info.classes:
                    self.mark(f"{self.info.qualify(owner)}.{target.attr}", value)

    def disallow(self, call: ast.Call) -> None:
        """`torch._dynamo.disallow_in_graph(torch.op)` (or a list of ops): calls of the op break
        in every compile region of the process (torch 2.13: GB0007)."""
        if self.info.qualify(ast_dotted(call.func) or "") not in DISALLOW_CALLS or len(call.args) != 1:
            return
        arg = call.args[0]
        for op in (arg.elts if isinstance(arg, (ast.List, ast.Tuple)) else [arg]):
            name = ast_dotted(op)
            if name:
                self.info.disallowed.add(self.info.qualify(name))

    def mark(self, qualname: str, value: ast.AST | None) -> None:
        """Record `qualname` as disabled/untraced when `value` wraps a function in a trace marker."""
        if not isinstance(value, ast.Call) or not (value.args or value.keywords):
            return
        marker = trace_marker(self.info, value)
        if marker is None and isinstance(value.func, ast.Call) and value.args:
            marker = trace_marker(self.info, value.func)  # disable(recursive=False)(f)
        if marker == "untraced":
            self.info.untraced.add(qualname)
        elif marker is not None:
            self.info.disabled.add(qualname)
            if marker == "nonrecursive":
                self.info.nonrecursive.add(qualname)

    def decorators(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> list[str]:
        names = []
        for dec in node.decorator_list:
            name = ast_dotted(dec.func if isinstance(dec, ast.Call) else dec)
            if name:
                names.append(self.info.qualify(name))
        return names

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, cls: ClassInfo | None,
                 outer: str = "") -> None:
        """Index one `def` at module or class level, or one nested in the def `outer` (a
        qualname: `Tests.test_item`) that is compiled (`nested_def`)."""
        qualname = f"{outer}.{node.name}" if outer else f"{cls.name}.{node.name}" if cls else node.name
        occurrence = self.seen.get(qualname, 0)
        self.seen[qualname] = occurrence + 1
        line = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        fn = FunctionInfo(node.name, qualname, occurrence, line, self.decorators(node),
                          end_line=node.end_lineno or 0, indent=node.col_offset,
                          params=[a.arg for a in (*node.args.posonlyargs, *node.args.args)],
                          required=len(node.args.posonlyargs) + len(node.args.args) - len(node.args.defaults),
                          returns=ast.unparse(node.returns) if node.returns is not None else "")
        fn.def_line = node.lineno
        if cls is None and not outer and (table := _registered_into(node)):
            self.info.registrars[node.name] = table
        if node.returns is not None:
            fn.param_annotations = {a.arg: ast.unparse(a.annotation) for a in (
                *node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs) if a.annotation is not None}
        returned: list[ast.AST] | None = [] if cls is None and not outer else None
        bindings: list[ast.AST] = []
        comprehensions: list[ast.AST] = []
        defaults = _function_defaults(node)
        blocks, yields = _collect_calls(self.info, fn, node.body, self, bindings, returned, defaults, comprehensions)
        fn.member_defaults = {param: self.info.qualify(name) for param, name in defaults.items()
                              if _is_member_name(name)}
        if fn.global_reads:
            fn.global_reads = _unshadowed(fn.global_reads, node, bindings, self.globals_declared)
        if comprehensions:
            fn.comprehension_calls = comprehension_calls(self.info, node, comprehensions)
        classes, fn.factory_locals, fn.rebound = _local_instances(self.info, node, bindings)
        add_instances(fn, classes)
        if classes or fn.factory_locals:
            fn.built_calls = _built_calls(node.body, (set(classes) | set(fn.factory_locals)) - set(fn.params))
        if classes:
            for sub in bindings:
                if isinstance(sub, ast.Assign) and isinstance(sub.value, ast.Call):
                    note_passed_instances(self.info, sub.value, fn.local_classes)
        if returned:
            fn.returned_class = _returned_class(self.info, returned)
            closure = _returned_def(node, returned) if not fn.returned_class else None
            if closure is not None:  # indexed as a nested def, so `torch.compile(make(s))` can root it
                fn.returned_def = self.nested_def(closure, qualname)
        if yields:  # in this def or a nested one: only its own make it a generator
            fn.is_generator = any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in _own_nodes(node))
        if blocks:
            fn.frames = def_frames(self.info, node)
        fn.quiet_calls, fn.quiet_comprehensions = _quiet_calls(self.info, node, method=cls is not None)
        owner = cls.qualname if cls else self.info.name
        full = f"{owner}.{node.name}" if not outer else f"{self.info.name}.{qualname}"
        for dec in node.decorator_list:
            marker = trace_marker(self.info, dec)
            if marker == "untraced":
                self.info.untraced.add(full)
            elif marker is not None:
                self.info.disabled.add(full)
                if marker == "nonrecursive":
                    self.info.nonrecursive.add(full)
        if outer:
            self.info.functions[qualname] = fn  # found by qualified name only (`mod.Tests.test_item.fn`)
        elif cls is not None:
            cls.methods[node.name] = fn
            if node.name == "__init__":
                self.self_attrs(cls, node)
            if _stores_self(fn):  # most methods (`forward`) store no attribute: not walked again
                self.callable_binds(cls, node)
                if node.name != "__init__":
                    self.later_instances(cls, node)
        else:
            self.info.functions[node.name] = fn
            if _returns_compiling(self.info, node):
                self.info.compiling_helpers.add(node.name)
            # only a def whose returns (collected above, nested defs' included) wrap a call in a
            # marker is walked again for its own returns
            marker = _returns_marker(self.info, node) if any(
                _marker_return(self.info, r) for r in returned or () if isinstance(r, ast.Return)) else None
            if marker:
                self.info.marker_returns[node.name] = marker
            if node.name == "breakscan_examples":
                self.example_targets(node)

    def klass(self, node: ast.ClassDef) -> None:
        cls = ClassInfo(node.name, f"{self.info.name}.{node.name}")
        for base in node.bases:
            name = ast_dotted(base)
            if name:
                cls.bases.append(self.info.qualify(name))
        self.info.classes[node.name] = cls
        for stmt in node.body:  # `mask: Tensor` / `logits: Optional[torch.FloatTensor] = None` fields
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) \
                    and _tensor_annotation(stmt.annotation):
                cls.tensor_attrs.add(stmt.target.id)
            elif isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call):
                callee = self.info.qualify(ast_dotted(stmt.value.func) or "")
                cls.class_calls.update((t.id, callee) for t in stmt.targets if isinstance(t, ast.Name))
        self.statements(node.body, cls)
        storing = {name for name, fn in cls.methods.items() if _stores_self(fn)}
        cls.tensor_attrs |= _assigned_tensor_attrs(self.info, node, storing)
        for dec in node.decorator_list:  # @torch.compiler.disable on a class skips calls of its instances
            if trace_marker(self.info, dec) == "disable":
                self.info.disabled.update((f"{cls.qualname}.forward", f"{cls.qualname}.__call__"))

    def self_attrs(self, cls: ClassInfo, init: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        args = (*init.args.posonlyargs, *init.args.args, *init.args.kwonlyargs)[1:]
        params = {a.arg for a in args}
        annotated = {a.arg: self.info.qualify(name) for a in args if (name := _annotated_class(a.annotation))}
        defaults = _function_defaults(init)
        python = {a.arg for a in args if isinstance(a.annotation, ast.Name) and a.annotation.id in ("str", "int", "bool")}
        # unannotated with a string or bool default (`prefix="head"`): a Python value, as `str` says
        python |= {a.arg for a, d in _param_defaults(init) if a.annotation is None
                   and isinstance(d, ast.Constant) and type(d.value) in (str, bool)}
        for node in _def_nodes(init):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                        value = node.value
                        stored = value.id if isinstance(value, ast.Name) and value.id in params else ""
                        if stored:
                            member = defaults.get(stored, "")
                        else:
                            member = ast_dotted(value) or "" if isinstance(value, ast.Attribute) else ""
                        if _is_member_name(member):
                            cls.member_attrs[t.attr] = (stored, self.info.qualify(member))
                        if stored in python:
                            cls.python_attrs.add(t.attr)
                        if isinstance(node.value, ast.Call) and trace_marker(self.info, node.value):
                            self.mark(f"{cls.qualname}.{t.attr}", node.value)  # not traced: no submodule
                        else:
                            self.record_attr(cls, t.attr, node.value, params, annotated)
            elif isinstance(node, ast.Call):
                name = ast_dotted(node.func) or ""
                if name.endswith(("register_buffer", "register_parameter")) and node.args \
                        and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                    cls.tensor_attrs.add(node.args[0].value)

    def later_instances(self, cls: ClassInfo, method: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        """`self.meter = Meter()` in a method other than `__init__` (`reset`, `setup`): the
        attribute may hold an instance of that project-looking class too, so its methods called
        as `self.meter.update(x)` are traced in a region (ClassInfo.submodules, after what
        `__init__` stores there). Classes of torch are left to `__init__`."""
        for node in _def_nodes(method):
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Call)):
                continue
            t = node.targets[0]
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self" \
                    and (built := instance_class(self.info, node.value)) and not built.startswith("torch."):
                held = cls.submodules.setdefault(t.attr, [])
                if built not in held:
                    held.append(built)

    def callable_binds(self, cls: ClassInfo, method: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        """`self.x = helper`, `self.x = functools.partial(helper, ...)`, `self.x = self.m` in a
        method (`__init__`, a setter): calling `self.x(...)` later runs that function, which Dynamo
        inlines like any call (measured on 2.13). A parameter of the method is recorded as
        "arg:<method>:<position>" (the class's own calls `self.<method>(f)` say what it is).
        A lambda (`self.up = lambda t: upsample(t, k)`, or a default: `act or (lambda t: ...)`)
        runs the functions its body calls: those are recorded (its own body is checked where
        `self.up(...)` is called, RegionVisitor.leave_Call)."""
        for node in _def_nodes(method):
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
                continue
            t, value = node.targets[0], node.value
            if not (isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"):
                continue
            called = [c.func for lam in _stored_lambdas(value) for c in ast.walk(lam.body) if isinstance(c, ast.Call)]
            if called:  # a lambda: what its body calls runs when `self.<attr>(...)` is called
                targets = cls.callable_attrs.setdefault(t.attr, [])
                for func in called:
                    name = ast_dotted(func) if isinstance(func, (ast.Name, ast.Attribute)) else None
                    if not name or name.partition(".")[0] in _LIBRARY_HEADS \
                            or (name.count(".") and not name.startswith("self.")):
                        continue  # a method of a value (`t.sum()`): not a project function by name
                    bound = name if name.startswith("self.") else self.info.qualify(name)
                    if bound not in targets:
                        targets.append(bound)
                continue
            value = self._unpartial(value)
            table = ast_dotted(value.value) if isinstance(value, ast.Subscript) \
                and isinstance(value.value, (ast.Name, ast.Attribute)) else None
            name = ast_dotted(value) if isinstance(value, (ast.Name, ast.Attribute)) else None
            params = [a.arg for a in (*method.args.posonlyargs, *method.args.args)][1:]
            if table and not table.startswith("self."):
                bound = f"reg:{self.info.qualify(table)}"  # `self.loss_fn = LOSSES[name]`: one of its functions
            elif not name or name.partition(".")[0] in _LIBRARY_HEADS:
                continue
            elif name in params:  # a setter: what its callers pass (`self.set_fn(helper)`)
                bound = f"arg:{method.name}:{params.index(name)}"
            else:
                bound = name if name.startswith("self.") else self.info.qualify(name)
            targets = cls.callable_attrs.setdefault(t.attr, [])
            if bound not in targets:
                targets.append(bound)

    def record_attr(self, cls: ClassInfo, attr: str, value: ast.AST, params: set[str] = frozenset(),
                    annotated: dict[str, str] | None = None) -> None:
        """What `self.<attr> = value` in `__init__` (parameters `params`) says of the attribute. A
        parameter stored as is or wrapped (`nn.ModuleList(ops)`, `nn.Sequential(*blocks)`) is
        recorded as "arg:<name>" among its submodules: the classes the project's calls pass
        there (ProjectIndex.class_attr_kinds), and the class its annotation names (`annotated`:
        parameter -> qualified class, `scheduler: LinearScheduler`) when stored as is."""
        passed: list[str] = []
        if params:
            wrapped = value.args if isinstance(value, ast.Call) and len(value.args) == 1 else [value]
            stored = [a.value if isinstance(a, ast.Starred) else a for a in wrapped]
            if len(stored) == 1 and isinstance(stored[0], ast.Name) and stored[0].id in params:
                passed = [f"arg:{stored[0].id}"]
                if value is stored[0] and annotated and stored[0].id in annotated:
                    passed.append(f"ann:{annotated[stored[0].id]}")  # read only when no call passes one
        if isinstance(value, ast.Constant):
            cls.scalar_attrs.add(attr)
            if isinstance(value.value, (int, float)) and not isinstance(value.value, bool):
                cls.numeric_attrs.add(attr)
            return
        if isinstance(value, ast.Call):
            head = self.info.qualify(ast_dotted(_converted_call(value).func) or "")
            if head in TORCH_FACTORIES or head in TORCH_TENSOR_OPS or head.endswith((".Parameter", ".Buffer")):
                cls.tensor_attrs.add(attr)  # `torch.sqrt(alphas)` too: a tensor, not a submodule
                if head.endswith(".Buffer"):
                    cls.buffer_attrs.add(attr)
                return
        called = [self.info.qualify(n) for n in
                  (ast_dotted(c.func) for c in walk_nodes(value) if isinstance(c, ast.Call)) if n]
        if called or passed:  # every assignment counts: `if cfg: self.x = A() else: self.x = B()`
            held = cls.submodules.setdefault(attr, [])
            held.extend(q for q in passed + called if q not in held)

    def example_targets(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        """The callables `breakscan_examples()` yields (`(fn, args)` / `(fn, args, kwargs)`):
        `name`, `Class()`, or `var.attr` where `var` is a local instance (`scheduler =
        DDPMScheduler(...)`, `model = Net().eval()`, `Cls.from_config(...)`): its bound method,
        whose region the class's method roots (resolved through `var_classes`)."""
        local_classes: dict[str, str] = {}
        for sub in walk_nodes(node):
            if isinstance(sub, ast.Assign) and isinstance(sub.value, ast.Call):
                callee = instance_class(self.info, sub.value)
                for t in sub.targets:
                    if callee and isinstance(t, ast.Name):
                        local_classes[t.id] = callee
        for sub in walk_nodes(node):
            value = sub.value if isinstance(sub, ast.Yield) else sub if isinstance(sub, ast.Tuple) else None
            if isinstance(value, ast.Tuple) and 2 <= len(value.elts) <= 3:
                first = value.elts[0]
                name = ast_dotted(first.func if isinstance(first, ast.Call) else first)
                if name:
                    self.info.example_targets.append(name + ("()" if isinstance(first, ast.Call) else ""))
                    head = name.partition(".")[0]
                    if head in local_classes:  # a bound method (or the instance) of a local object
                        self.info.var_classes.setdefault(head, local_classes[head])

    def module_calls(self, tree: ast.Module) -> None:
        """`torch.compile(x)` / `x.compile()` targets and `v = Class(...)` variables.

        Compile targets take every applied form: `torch.compile(fn, ...)`, `torch.compile(...)(fn)`,
        `torch._dynamo.optimize(backend)(fn)`, `model.compile()`, and inside a class
        `self.f = torch.compile(self.f)` (recorded as `self:Class.attr`)."""
        stack: list[tuple[ast.AST, str, str]] = [(tree, "", "")]  # (node, class, enclosing def's qualname)
        local_defs: dict[str, dict[str, ast.AST | None]] = {}  # def qualname -> its nested defs by name
        loop_values: dict[tuple[str, str], list[str]] = {}  # (scope, loop variable) -> compile targets
        while stack:
            node, cls, scope = stack.pop()
            if isinstance(node, ast.For) and isinstance(node.iter, (ast.Tuple, ast.List)):
                loop_values.update(self.loop_targets(node, cls, scope))
            elif isinstance(node, ast.ClassDef):
                cls = node.name if not scope else cls
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if scope and local_defs.get(scope, {}).get(node.name) is node and self.compile_decorated(node):
                    self.nested_def(node, scope, local_defs[scope])  # `@torch.compile` on a def in a test
                scope = f"{scope}.{node.name}" if scope else f"{cls}.{node.name}" if cls else node.name
                defs: dict[str, ast.AST | None] = {}
                for d in _own_nodes(node):
                    if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        defs[d.name] = None if d.name in defs else d  # a name defined twice: ambiguous
                local_defs[scope] = defs
            stack.extend([(child, cls, scope) for child in child_nodes(node)])
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                value = module_expr(self.info, node.value)
                name = ast_dotted(value.func) if isinstance(value, ast.Call) else None
                if name and name.rsplit(".", 1)[-1][:1].isupper():
                    for t in node.targets:
                        if isinstance(t, ast.Name):
                            self.info.var_classes[t.id] = self.info.qualify(name)
                elif factory := factory_call(self.info, node.value):  # what it returns: known in phase B
                    for t in node.targets:
                        if isinstance(t, ast.Name):
                            self.info.var_factory_calls[t.id] = factory
                compiled = self.compiled_expr(node.value)
                text = self.compile_target(compiled, cls) if compiled is not None else None
                if text and scope and local_defs.get(scope, {}).get(text) is not None:
                    text = f"{scope}.{text}"
                if text:  # fast = torch.compile(step): calling `fast` later runs `step`
                    for t in node.targets:
                        if isinstance(t, ast.Name):
                            self.info.compiled_aliases[t.id] = text
                        elif text.startswith("self:") and isinstance(t, ast.Attribute) \
                                and isinstance(t.value, ast.Name) and t.value.id == "self":
                            self.info.compiled_attrs[f"{cls}.{t.attr}"] = text[len("self:"):]
            if isinstance(node, ast.Call):
                compiled = self.compiled_expr(node)
                text = self.compile_target(compiled, cls) if compiled is not None else None
                nested = local_defs.get(scope, {}).get(text) if text and scope else None
                if nested is not None:  # `torch.compile(fn, backend=cnt)` of a def of this scope
                    text = self.nested_def(nested, scope, local_defs[scope])
                if text and loop_values:  # `for fn in (relu_mlp, gelu_mlp): torch.compile(fn)`
                    head, call = (text[:-2], "()") if text.endswith("()") else (text, "")
                    values = loop_values.get((scope, head))
                    if values is not None:
                        self.info.compile_targets.extend(v + call for v in values if not (call and v.endswith("()")))
                        continue
                if text:
                    self.info.compile_targets.append(text)

    def compile_decorated(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        """Whether a decorator of `node` is `torch.compile` (bare or called with options)."""
        return any(self.info.qualify(ast_dotted(d.func if isinstance(d, ast.Call) else d) or "") in COMPILE_CALLS
                   for d in node.decorator_list)

    def nested_def(self, node: ast.AST, scope: str, siblings: dict[str, ast.AST | None] | None = None) -> str:
        """Index a def nested in the def `scope` that is compiled (a test's `def fn` then
        `torch.compile(fn, backend=cnt)`), and the other defs of `scope` (`siblings`), which it
        may call: its qualname, `scope.name`, names each once."""
        qualname = f"{scope}.{node.name}"  # type: ignore[attr-defined]
        for found in (node, *(d for d in (siblings or {}).values() if d is not None)):
            if id(found) not in self.nested_seen:
                self.nested_seen.add(id(found))
                self.function(found, None, outer=scope)  # type: ignore[arg-type]
        return qualname

    def compiled_expr(self, node: ast.Call) -> ast.AST | None:
        """What the call `node` compiles, or None: `torch.compile(fn, ...)` (or `model=fn`),
        `torch.compile(...)(fn)`, `torch._dynamo.optimize(backend)(fn)`, `model.compile()`, and
        `torch._dynamo.explain(fn)` (which traces `fn` as a compile does)."""
        func = node.func
        name = ast_dotted(func)
        if name is None:  # `torch.compile(backend=...)(fn)`; not `torch.compile(fn)(x)`, a call of it
            if isinstance(func, ast.Call) and node.args and self.is_compile(func) and (
                    not func.args or self.info.qualify(ast_dotted(func.func) or "") == "torch._dynamo.optimize"):
                return node.args[0]
            return None
        if self.is_compile(node) or self.info.qualify(name) == "torch._dynamo.explain":
            if self.info.qualify(name) == "torch._dynamo.optimize":
                return None  # its positional argument is the backend; the target is applied after
            return node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "model"), None)
        if name.endswith(".compile") and not node.args and isinstance(func, ast.Attribute):
            return func.value
        return None

    def is_compile(self, node: ast.Call) -> bool:
        name = ast_dotted(node.func)
        return name is not None and self.info.qualify(name) in COMPILE_CALLS

    def loop_targets(self, node: ast.For, cls: str, scope: str) -> dict[tuple[str, str], list[str]]:
        """The compile-target texts (compile_target) a `for` over a literal tuple or list binds to
        each loop variable: `for fn in (f, g)`, `for name, model in [("a", Net()), ...]`; keyed by
        (scope, variable). A variable some element does not give a target is left out."""
        found: dict[tuple[str, str], list[str]] = {}
        elements = node.iter.elts  # type: ignore[attr-defined]
        targets = [node.target] if isinstance(node.target, ast.Name) else (
            node.target.elts if isinstance(node.target, ast.Tuple) else [])
        for position, target in enumerate(targets):
            if not isinstance(target, ast.Name):
                continue
            texts = []
            for element in elements:
                if isinstance(node.target, ast.Tuple):
                    if not isinstance(element, (ast.Tuple, ast.List)) or len(element.elts) != len(targets):
                        break
                    element = element.elts[position]
                text = self.compile_target(element, cls) if isinstance(element, (ast.Name, ast.Attribute, ast.Call)) else None
                if not text:
                    break
                texts.append(text)
            else:
                if texts:
                    found[(scope, target.id)] = texts
        return found

    def compile_target(self, target: ast.AST, cls: str) -> str | None:
        """The compile-target text of an expression: `name`, `var.attr`, `Class()`, `self:Class.attr`."""
        target = module_expr(self.info, target)
        if isinstance(target, ast.Call):
            callee = ast_dotted(target.func)
            if callee and self.info.qualify(callee) == "functools.partial" and target.args:
                return self.compile_target(target.args[0], cls)  # Dynamo traces the partial's function
            return callee + "()" if callee else None
        dotted = ast_dotted(target)
        if not dotted:
            return None
        head, _, attr = dotted.partition(".")
        if head == "self":
            return f"self:{cls}.{attr or 'forward'}" if cls and "." not in attr else None
        return dotted


def _collect_calls(info: ModuleInfo, fn: FunctionInfo, body: list[ast.stmt], indexer: _Indexer,
                   bindings: list[ast.AST], returned: list[ast.AST] | None = None,
                   defaults: dict[str, str] | None = None,
                   comprehensions: list[ast.AST] | None = None) -> tuple[bool, bool]:
    """Calls in a function body (nested defs included), skipping branches Dynamo does not trace.

    Iterative and dispatch-free: this runs over every function of every file in phase A.
    Returns whether the body holds a `try`, `for`, `while` or `with` statement (a SkipBlock),
    and whether it (or a nested def) yields. `returned`, when given, receives the `return`
    statements and the single-name assignments of calls (for _returned_class). `defaults`
    (`_function_defaults`): a call of a parameter is recorded as a call of its default function.
    `bindings` receives the stored names, assignments, defs and classes (for _local_instances);
    `comprehensions`, when given, the list, set and dict comprehensions (for comprehension_calls).
    """
    stack: list[ast.AST] = list(live_statements(info, body))
    calls = fn.calls
    has_blocks = yields = False
    loop_attrs = fn.loop_attrs
    instance_names = indexer.instance_names
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is ast.If and isinstance(node.test, _GUARD_TESTS):
            known = compiling_guard(info, node.test)
            if known is not None:
                if isinstance(node.test, ast.BoolOp):  # the operands Python evaluates run
                    stack.extend(deciding_operands(info, node.test))
                elif isinstance(node.test, ast.Compare):  # `get_worker_info() is None`: the call runs
                    stack.append(node.test)
                stack.extend(live_statements(info, node.body if known else node.orelse))
                continue
        elif kind is ast.BoolOp:  # `is_compiling() or helper()`: `helper` is not called under Dynamo
            stack.extend(deciding_operands(info, node))
            continue
        elif kind is ast.Call:
            if node.args or node.keywords:
                note_construction(info, node)
            ref = call_ref(node)
            if ref is not None:
                if loop_attrs and ref.kind == "name":
                    ref = _through_loop_target(ref, loop_attrs)
                if defaults and ref.kind == "name" and ref.name in defaults:
                    ref = CallRef("name", defaults[ref.name], ref.args, ref.kwargs)
                calls.append(ref)
        elif kind is ast.Attribute:
            ctx = type(node.ctx)
            if ctx is ast.Load and type(node.value) is ast.Name and node.value.id == "self":
                fn.self_reads.add(node.attr)  # a property getter of the class runs here
            elif ctx is ast.Load and type(node.value) is ast.Attribute and type(node.value.value) is ast.Name \
                    and node.value.value.id == "self":
                fn.sub_reads.add(f"{node.value.attr}.{node.attr}")  # a property of the object `self.x` holds
            elif ctx is ast.Load and type(node.value) is ast.Name and node.value.id in instance_names:
                fn.global_reads.add(f"{node.value.id}.{node.attr}")  # a property of a module-level instance
            elif ctx is ast.Store:  # `obj.attr = x`: a project `__setattr__` or property setter runs
                receiver = ast_dotted(node.value)
                if receiver:
                    fn.attr_stores.add(f"{receiver}.{node.attr}")
        elif kind is ast.Global:
            indexer.globals_declared.update(node.names)
        elif kind in _BLOCK_NODES:
            has_blocks = True
            if kind is ast.For or kind is ast.AsyncFor:  # before its body: the stack is depth-first
                _note_loop_target(node, loop_attrs)
        elif kind is ast.Yield or kind is ast.YieldFrom:
            yields = True
        elif kind is ast.GeneratorExp:
            has_blocks = True  # a break inside one is not resumed either (SkipBlock "genexpr")
            if comprehensions is not None:
                comprehensions.append(node)
        elif comprehensions is not None and kind in _COMPREHENSIONS:
            comprehensions.append(node)
        elif kind is ast.Name:
            if type(node.ctx) is ast.Store:
                bindings.append(node)
            continue  # a Name has no children to walk
        if kind is ast.Assign or kind is ast.FunctionDef or kind is ast.ClassDef or kind is ast.AsyncFunctionDef:
            bindings.append(node)
        if returned is not None and (kind is ast.Return or kind is ast.FunctionDef or (
                kind is ast.Assign and len(node.targets) == 1 and type(node.value) is ast.Call)):
            returned.append(node)
        stack.extend(child_nodes(node))
    return has_blocks, yields


def _returned_def(node: ast.FunctionDef | ast.AsyncFunctionDef, found: list[ast.AST]) -> ast.FunctionDef | None:
    """The def nested in `node` that every `return` of `node` itself gives by name (a closure
    factory), or None. `found`: what _collect_calls collected (nested defs' returns included)."""
    nested = {d.name for d in found if isinstance(d, ast.FunctionDef)}
    if not any(isinstance(r, ast.Return) and isinstance(r.value, ast.Name) and r.value.id in nested for r in found):
        return None
    own = _own_nodes(node)
    defs = {d.name: d for d in own if isinstance(d, ast.FunctionDef)}
    names = {r.value.id if isinstance(r.value, ast.Name) else "" for r in own if isinstance(r, ast.Return)}
    name = names.pop() if len(names) == 1 else ""
    return defs.get(name) if sum(1 for d in own if isinstance(d, ast.FunctionDef) and d.name == name) == 1 else None


def _returned_class(info: ModuleInfo, found: list[ast.AST]) -> str:
    """The qualified class every `return` in `found` builds (`return Net(d)`, `return
    Net(d).to(dev)`, or a name assigned once from one: `model = Net(d); return model`); "" when
    the returns differ, one is something else, or there is none (`torch.compile(build_model())`
    compiles what the factory returns)."""
    assigned: dict[str, ast.AST | None] = {}
    for node in found:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            assigned[name] = None if name in assigned else node.value
    classes = set()
    for node in found:
        if not isinstance(node, ast.Return):
            continue
        value = node.value
        if isinstance(value, ast.Name):
            value = assigned.get(value.id)
        built = instance_class(info, value) if isinstance(value, ast.Call) else None
        if built is None:
            return ""
        classes.add(built)
    return classes.pop() if len(classes) == 1 else ""


_TRY_NODES = (ast.Try, getattr(ast, "TryStar", ast.Try))
_LOOP_NODES = (ast.For, ast.While, ast.AsyncFor)
_BLOCK_NODES = (*_TRY_NODES, *_LOOP_NODES, ast.With, ast.AsyncWith)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp)  # frames of their own on Python <= 3.11
# Module objects Dynamo's has_tensor_in_frame counts when a frame names them as globals.
TORCH_MODULES = {"torch", "torch.nn", "torch.nn.functional", "torch.linalg", "torch.fft", "torch.special",
                 "torch.distributed", "torch.cuda", "torch.autograd", "torch.nn.init", "torch.distributions"}
# Iterables whose iterators Dynamo can step when a comprehension frame receives them (measured on 2.13:
# range and tuple iterators trace; list, dict, set, str, enumerate, zip and reversed ones do not).
_STEPPABLE_CALLS = {"range", "tuple"}


def def_frames(info: ModuleInfo, node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[DefFrame]:
    """The defs in `node` (itself and nested ones) that hold a SkipBlock; see DefFrame."""
    frames: list[DefFrame] = []
    todo: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, frozenset[str]]] = [(node, frozenset())]
    while todo:
        fn, outer_params = todo.pop()
        params = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}
        own = _own_nodes(fn)
        todo.extend((sub, outer_params | params) for sub in own if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)))
        blocks = [b for n in own if (b := _skip_block(n, params, own, info)) is not None]
        # `any(t.max() > 1 for t in ts)`: the truth test of each element runs in the builtin's
        # iteration of the generator, and the static pass flags the call: it counts as inside
        tested = {id(n.args[0]): n.col_offset for n in own if isinstance(n, ast.Call) and len(n.args) == 1
                  and not n.keywords and isinstance(n.args[0], ast.GeneratorExp)
                  and isinstance(n.func, ast.Name) and n.func.id in ("any", "all")}
        gens = [n for n in own if isinstance(n, ast.GeneratorExp)]
        if gens:  # one inside a list/set/dict comprehension breaks that frame, which Dynamo resumes after
            in_comps = {id(sub) for c in own if isinstance(c, _COMPREHENSIONS) for sub in ast.walk(c)}
            blocks += [SkipBlock("genexpr", n.lineno, n.lineno, n.end_lineno or n.lineno,
                                 columns=(tested.get(id(n), n.col_offset), n.end_col_offset or 0))
                       for n in gens if id(n) not in in_comps]
        if not blocks:
            continue
        _note_exclusive_arms(blocks, [n for n in own if isinstance(n, ast.If)])
        frame = DefFrame(fn.lineno, fn.end_lineno or fn.lineno, blocks)
        held: set[str] | None = None  # the def's locals holding tensors, worked out on first need
        loop_attrs: dict[str, str] = {}  # `m.update(x)` for `m` in `self.meters`: a method of its elements
        for sub in own:
            if isinstance(sub, (ast.For, ast.AsyncFor)):
                _note_loop_target(sub, loop_attrs)
        for sub in own:
            if isinstance(sub, _DEFS) and sub is not fn:
                first = min([sub.lineno, *(d.lineno for d in getattr(sub, "decorator_list", ()))])
                start = sub.col_offset if isinstance(sub, ast.Lambda) else -1
                frame.nested.append((first, sub.end_lineno or sub.lineno, start))
            elif isinstance(sub, ast.GeneratorExp):
                frame.genexprs.append(Comprehension(sub.lineno, sub.col_offset, sub.end_lineno or sub.lineno,
                                                    sub.end_col_offset or 0, False))
            elif isinstance(sub, _COMPREHENSIONS) and _steps_unsupported_iterator(info, sub):
                traced = _references_module(info, sub)
                if not traced:  # a free variable holding a tensor makes Dynamo trace it too
                    if held is None:
                        from breakscan.static.tensor_locals import tensor_locals

                        held = tensor_locals(info, fn, own)
                    traced = _closes_over(sub, held)
                frame.comprehensions.append(Comprehension(
                    sub.lineno, sub.col_offset, sub.end_lineno or sub.lineno, sub.end_col_offset or 0, traced))
            elif isinstance(sub, ast.Call):
                if (ref := call_ref(sub)) is not None:
                    if loop_attrs and ref.kind == "name":
                        ref = _through_loop_target(ref, loop_attrs)
                    frame.calls.append((sub.lineno, ref))
                if isinstance(sub.func, ast.Name) and sub.func.id in outer_params:
                    frame.param_lines.append(sub.lineno)
        frames.append(frame)
    return frames


def _skip_block(node: ast.AST, params: set[str], own: list[ast.AST], info: ModuleInfo) -> SkipBlock | None:
    """The SkipBlock of a try/for/while/with statement (its body only: a `for`'s iterable and a
    loop's `else` are outside the loop's back edge), else None."""
    if isinstance(node, _TRY_NODES):
        kind, ctx = "try", ""
    elif isinstance(node, _LOOP_NODES):
        kind, ctx = "loop", ""
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        called = [item.context_expr for item in node.items if isinstance(item.context_expr, ast.Call)]
        names = [n for n in (ast_dotted(c.func) for c in called) if n]
        if not names or info.qualify(names[0]).startswith(("torch.", "contextlib.nullcontext")):
            return None  # torch's own context managers resume
        kind, ctx = "with", names[0]
    else:
        return None
    body = node.body  # type: ignore[attr-defined]
    if not body:
        return None
    block = SkipBlock(kind, node.lineno, body[0].lineno, max(s.end_lineno or s.lineno for s in body), ctx=ctx)
    if isinstance(node, (ast.For, ast.AsyncFor)):
        block.loop_over = _loop_over_self(node)
    if kind == "try":
        block.ops_before = any(_may_add_ops(info, n, params) for n in own
                               if getattr(n, "end_lineno", None) and n.end_lineno < node.lineno)
    return block


_STR_BASES = frozenset({"str", "builtins.str", "enum.StrEnum"})
_ENUM_BASES = frozenset({"enum.Enum", "enum.StrEnum"})
_ALIAS_HEADS = {"Optional", "Union", "Tuple", "tuple", "List", "list", "Dict", "dict"}


def _type_alias(info: ModuleInfo, value: ast.AST | None) -> str | None:
    """The source of `value` when it is a type alias of tensors: `Optional[Tensor]`,
    `Union[Tensor, SparseTensor]`, `Tuple[Tensor, Tensor]` (a typing subscript), `Tensor` itself,
    or a `|` union with a tensor member (`np.ndarray | torch.Tensor`: MONAI's NdarrayOrTensor)."""
    if isinstance(value, ast.Subscript) and (ast_dotted(value.value) or "").rsplit(".", 1)[-1] in _ALIAS_HEADS:
        return ast.unparse(value)
    if isinstance(value, (ast.Name, ast.Attribute)) and info.qualify(ast_dotted(value) or "") == "torch.Tensor":
        return ast.unparse(value)
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.BitOr) and (  # `np.ndarray | torch.Tensor`
            _type_alias(info, value.left) is not None or _type_alias(info, value.right) is not None):
        return ast.unparse(value)
    return None


def _span(body: list[ast.stmt]) -> tuple[int, int]:
    return body[0].lineno, max(s.end_lineno or s.lineno for s in body)


def _note_exclusive_arms(blocks: list[SkipBlock], ifs: list[ast.If]) -> None:
    """Set each block's `exclusive`: for every `if` with an `else`/`elif` whose one arm holds the
    block, the other arm's line span."""
    for block in blocks:
        spans = []
        for node in ifs:
            if not node.orelse:
                continue
            body, orelse = _span(node.body), _span(node.orelse)
            if body[0] <= block.line <= body[1]:
                spans.append(orelse)
            elif orelse[0] <= block.line <= orelse[1]:
                spans.append(body)
        block.exclusive = tuple(spans)


def _loop_over_self(node: ast.For | ast.AsyncFor) -> tuple[str, str]:
    """(loop variable, attribute) for `for v in self.attr:` and `for i, v in enumerate(self.attr):`
    (a ModuleList of layers: `v(x)` in the body calls their `forward`), else ("", "")."""
    it, target = node.iter, node.target
    if isinstance(it, ast.Call) and ast_dotted(it.func) == "enumerate" and it.args \
            and isinstance(target, ast.Tuple) and len(target.elts) == 2:
        it, target = it.args[0], target.elts[1]
    if isinstance(target, ast.Name) and isinstance(it, ast.Attribute) and isinstance(it.value, ast.Name) \
            and it.value.id == "self":
        return target.id, it.attr
    return "", ""


def _tensor_value(info: ModuleInfo, value: ast.AST, tensors: set[str]) -> bool:
    """Whether `value` is certainly a tensor, given the local names `tensors` known to be ones: a
    torch factory or tensor op (TORCH_FACTORIES, TORCH_TENSOR_OPS) or a tensor's conversion
    (`.to("cpu")`, `.flip(0)`), arithmetic with a tensor operand, `-t`, or a slice of a tensor."""
    if isinstance(value, ast.Name):
        return value.id in tensors
    if isinstance(value, ast.Call):
        func = value.func
        if isinstance(func, ast.Attribute) and func.attr in TENSOR_CONVERSIONS:
            return _tensor_value(info, func.value, tensors)
        head = info.qualify(ast_dotted(func) or "")
        return head in TORCH_FACTORIES or head in TORCH_TENSOR_OPS
    if isinstance(value, ast.BinOp):
        return _tensor_value(info, value.left, tensors) or _tensor_value(info, value.right, tensors)
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub):
        return _tensor_value(info, value.operand, tensors)
    if isinstance(value, ast.Subscript):
        return _tensor_value(info, value.value, tensors)
    return False


def _is_self_attr(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def _stores_self(fn: FunctionInfo) -> bool:
    """Whether a method stores an attribute of `self` (`self.x = ...`; _collect_calls's attr_stores)."""
    return any(store.startswith("self.") for store in fn.attr_stores)


def _assigned_tensor_attrs(info: ModuleInfo, node: ast.ClassDef, storing: set[str]) -> set[str]:
    """`self.x` attributes that every method of the class assigns only tensors (or None): a
    scheduler's `self.sigmas = torch.cat([...])` in `set_timesteps`, `self.sigmas = sigmas.to("cpu")`
    of a local tensor in `__init__`. Locals are followed in source order (`a = np.linspace(...)`
    then `a = torch.from_numpy(a)`: a tensor from there on; a loop or `with` target is not one). An
    attribute assigned anything else anywhere (a list, a call of unknown result) is left out
    (precision first). Only the methods named in `storing` (those that store a `self` attribute)
    are read."""
    verdict: dict[str, bool] = {}
    assigned: set[str] = set()  # attributes assigned something other than None
    unknown = ast.Constant(0)  # what a loop or `with` target holds: not known to be a tensor
    for method in node.body:
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or method.name not in storing:
            continue
        stores: list[tuple[int, int, ast.expr, ast.AST]] = []
        for sub in _own_nodes(method):
            if isinstance(sub, ast.Assign):
                stores.extend((sub.lineno, sub.col_offset, t, sub.value) for t in sub.targets)
            elif isinstance(sub, (ast.AnnAssign, ast.NamedExpr)) and sub.value is not None:
                stores.append((sub.lineno, sub.col_offset, sub.target, sub.value))
            elif isinstance(sub, (ast.For, ast.AsyncFor, ast.comprehension)):
                stores.append((getattr(sub.target, "lineno", 0), 0, sub.target, unknown))
            elif isinstance(sub, ast.withitem) and sub.optional_vars is not None:
                stores.append((sub.optional_vars.lineno, 0, sub.optional_vars, unknown))
        tensors: set[str] = set()
        for _, _, target, value in sorted(stores, key=lambda s: (s[0], s[1])):
            if isinstance(target, ast.Name):
                (tensors.add if _tensor_value(info, value, tensors) else tensors.discard)(target.id)
            elif isinstance(target, (ast.Tuple, ast.List)):  # unpacked: its elements' kinds are not known
                for el in target.elts:
                    if _is_self_attr(el):
                        verdict[el.attr] = False  # type: ignore[attr-defined]
                tensors.difference_update(ast.unparse(el).lstrip("*") for el in target.elts)
            elif _is_self_attr(target):
                none = isinstance(value, ast.Constant) and value.value is None
                attr = target.attr  # type: ignore[attr-defined]
                verdict[attr] = verdict.get(attr, True) and (none or _tensor_value(info, value, tensors))
                if not none:
                    assigned.add(attr)
    return {attr for attr, ok in verdict.items() if ok and attr in assigned}


_OWN: dict[int, tuple[ast.AST, list[ast.AST]]] = {}
_OWN_SIZE = 16  # defs kept: phase A reads the same method's nodes up to five times in a row


def _own_nodes(fn: ast.AST) -> list[ast.AST]:
    """Nodes of a def's body, not descending into nested defs or lambdas (those are listed).
    Kept for the last defs asked for (_kept)."""
    return _kept(_OWN, fn, _own_nodes_uncached)


_WALKED: dict[int, tuple[ast.AST, list[ast.AST]]] = {}


def _def_nodes(fn: ast.AST) -> list[ast.AST]:
    """`walk_nodes(fn)` for a def, kept like _own_nodes: `__init__` and the other methods that
    store attributes are read by self_attrs, callable_binds and later_instances in turn."""
    return _kept(_WALKED, fn, walk_nodes)


def _kept(table: dict[int, tuple[ast.AST, list[ast.AST]]], fn: ast.AST, compute) -> list[ast.AST]:
    """`compute(fn)`, kept in `table` for the last `_OWN_SIZE` defs (phase A reads the same
    method's nodes up to five times in a row; callers only read the list). The entry holds the
    node, so its id is not reused while the entry lives."""
    found = table.get(id(fn))
    if found is not None and found[0] is fn:
        return found[1]
    out = compute(fn)
    if len(table) >= _OWN_SIZE:
        del table[next(iter(table))]
    table[id(fn)] = (fn, out)
    return out


def _own_nodes_uncached(fn: ast.AST) -> list[ast.AST]:
    out: list[ast.AST] = []
    for stmt in fn.body:  # type: ignore[attr-defined]
        if isinstance(stmt, _DEFS):  # a nested def statement: listed, its body is its own frame's
            out.append(stmt)
        else:
            out.extend(_walk_own(stmt))
    return out


def _walk_own(root: ast.AST) -> list[ast.AST]:
    out: list[ast.AST] = []
    stack = [root]
    while stack:
        node = stack.pop()
        out.append(node)
        if isinstance(node, _DEFS) and node is not root:
            continue
        stack.extend(child_nodes(node))
    return out


def module_function_calls(info: ModuleInfo, held: list[str]) -> list[str]:
    """The functions of `info`'s module (names as defined there) that a `ClassInfo.submodules`
    entry `held` lists, when every call it records is one of them (`self.betas =
    betas_for(n)`: "pkg.mod.betas_for"; "arg:" entries are the call's parameters, not calls); []
    otherwise."""
    prefix = info.name + "."
    called = [q for q in held if not q.startswith("arg:")]
    names = [q[len(prefix):] for q in called if q.startswith(prefix)]
    if len(names) != len(called) or any(n not in info.functions for n in names):
        return []
    return names


def instance_class(info: ModuleInfo, value: ast.Call) -> str | None:
    """The qualified class a call builds (instance_spelling), or None."""
    name = instance_spelling(info, value)
    return info.qualify(name) if name else None


def instance_spelling(info: ModuleInfo, value: ast.Call) -> str | None:
    """The class a call builds, as the module spells it, by the usual spelling: `Class(...)`
    (with trailing `.to(dev)` / `.eval()` ...) or a `Class.from_*(...)` constructor; None
    otherwise."""
    value = module_expr(info, value)  # type: ignore[assignment]
    name = ast_dotted(value.func) if isinstance(value, ast.Call) else None
    if not name:
        return None
    head, _, last = name.rpartition(".")
    if last[:1].isupper():
        return name
    if head and head.rpartition(".")[2][:1].isupper() and last.startswith("from_"):
        return head
    return None


_CONTAINER_ARGS = (ast.List, ast.Tuple, ast.Call, ast.Starred)


def _class_call_slots(call: ast.Call) -> list[tuple[int | str, ast.expr]] | None:
    """The arguments of a call of a project-looking class (`Compose(...)`, `mod.Trainer(...)`: a
    capitalized name) by position or keyword; None for other calls. A starred argument ends the
    positions that can be told."""
    func = call.func
    last = func.id if type(func) is ast.Name else func.attr if type(func) is ast.Attribute else ""
    if not last[:1].isupper():
        return None
    slots: list[tuple[int | str, ast.expr]] = []
    for i, arg in enumerate(call.args):
        if type(arg) is ast.Starred:
            break
        slots.append((i, arg))
    return slots + [(k.arg, k.value) for k in call.keywords if k.arg]


def _called_class(info: ModuleInfo, call: ast.Call) -> str:
    """The qualified class a call of `_class_call_slots` builds."""
    func = call.func
    return info.qualify(ast_dotted(func) or (func.id if type(func) is ast.Name else func.attr))


def note_construction(info: ModuleInfo, call: ast.Call) -> None:
    """Record in `info.constructions` the project-looking classes built inside each argument of a
    class call (`Compose([Flip(), Noise(p=0.1)])`: Compose, 0, (Flip, Noise)), for the
    submodules an `__init__` stores from its parameters (`self.ops = nn.ModuleList(ops)`,
    ProjectIndex.class_attr_kinds), and a function of the module (or an imported name) passed
    by name, as "fn:<qualified name>" (`Net(hinge)`: Net, 0, ("fn:train.hinge",)), for the
    functions `__init__` stores to call later (`self.loss_fn = loss_fn`,
    ProjectIndex.passed_functions), and a string literal passed as "lit:str" (ProjectIndex.str_enum_attrs)."""
    slots = _class_call_slots(call)
    for slot, value in slots or ():
        if type(value) is ast.Constant and type(value.value) is str:  # `Net(mode="full")`: not a member
            info.constructions.append((_called_class(info, call), slot, ("lit:str",)))
        elif type(value) is ast.Name and (value.id in info.functions or value.id in info.imports) \
                and not value.id[:1].isupper():  # `Net(hinge)`: a function the instance may call
            info.constructions.append((_called_class(info, call), slot, (f"fn:{info.qualify(value.id)}",)))
        elif isinstance(value, _CONTAINER_ARGS):
            built = tuple(dict.fromkeys(c for sub in walk_nodes(value) if type(sub) is ast.Call
                                        and (c := instance_class(info, sub)) is not None))
            if built:
                info.constructions.append((_called_class(info, call), slot, built))


def note_passed_instances(info: ModuleInfo, value: ast.Call, instances: dict[str, str]) -> None:
    """Record in `info.constructions` the local instances (`instances`: name -> class as the
    module spells it, FunctionInfo.local_classes or the module's own) passed by name to a class
    call in `value` (`meter = EMAMeter()`, then `trainer = Trainer(model, meter)`: Trainer, 1,
    (EMAMeter,)), as note_construction records the objects built in the argument itself."""
    for call in walk_nodes(value):
        slots = _class_call_slots(call) if type(call) is ast.Call else None
        for slot, arg in slots or ():
            if type(arg) is ast.Name and arg.id in instances:
                info.constructions.append((_called_class(info, call), slot, (info.qualify(instances[arg.id]),)))


def factory_call(info: ModuleInfo, value: ast.Call) -> str:
    """The qualified function a call of a module-level or imported function calls (`build(cfg)`,
    `models.build(cfg).to(dev)`), for ProjectIndex.built_class; "" for methods, builtins and
    classes."""
    value = module_expr(info, value)  # type: ignore[assignment]
    name = ast_dotted(value.func) if isinstance(value, ast.Call) else None
    head = name.partition(".")[0] if name else ""
    if not name or name.rpartition(".")[2][:1].isupper() or (head not in info.functions and head not in info.imports):
        return ""
    qualified = info.qualify(name)
    return "" if qualified.startswith(("torch.", "numpy.", "functools.")) else qualified  # not a project factory


def _note_loop_target(loop: ast.For | ast.AsyncFor, loop_attrs: dict[str, str]) -> None:
    """Record the loop variable of `for v in self.X`, `for v in self.X[a:b]` and
    `for i, v in enumerate(self.X)`: its elements are the submodules `__init__` put in `self.X`
    (an `nn.ModuleList` of project blocks). A name bound by two loops over different attributes
    is dropped (its calls stay unresolved)."""
    target, it = loop.target, loop.iter
    if isinstance(it, ast.Call) and ast_dotted(it.func) == "enumerate" and len(it.args) == 1 \
            and isinstance(target, ast.Tuple) and len(target.elts) == 2:
        it, target = it.args[0], target.elts[1]
    if isinstance(it, ast.Subscript):
        it = it.value
    if not (isinstance(target, ast.Name) and isinstance(it, ast.Attribute)
            and isinstance(it.value, ast.Name) and it.value.id == "self"):
        return
    if loop_attrs.setdefault(target.id, it.attr) != it.attr:
        loop_attrs[target.id] = ""


def _is_member_name(name: str) -> bool:
    """Whether a dotted name reads as an enum member: `Cls.MEMBER`, `mod.Cls.MEMBER` (its last part
    capitalised); whether `Cls` is a `str` enum is ProjectIndex.is_str_enum's question."""
    return "." in name and name.rpartition(".")[2][:1].isupper()


def _function_defaults(node: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, str]:
    """Parameters whose default is a dotted name (`box_overlap_metric: Callable = box_iou`,
    `act=F.relu`): parameter -> that name. Called without the argument, the parameter runs the
    default, which Dynamo then traces inline."""
    found = {}
    for arg, default in _param_defaults(node):
        name = ast_dotted(default) if isinstance(default, (ast.Name, ast.Attribute)) else None
        if name:
            found[arg.arg] = name
    return found


def _stored_lambdas(value: ast.expr) -> list[ast.Lambda]:
    """The lambdas a value stored on `self` may be: itself, an operand of `or`/`and`, a branch
    of a conditional expression (visitor._stored_lambdas, on the ast)."""
    if isinstance(value, ast.Lambda):
        return [value]
    if isinstance(value, ast.BoolOp):
        return [lam for v in value.values for lam in _stored_lambdas(v)]
    if isinstance(value, ast.IfExp):
        return _stored_lambdas(value.body) + _stored_lambdas(value.orelse)
    return []


def _annotated_name(annotation: ast.expr | None) -> str | None:
    """The dotted name an annotation gives its one type, `None` left out: `Scheduler`,
    `torch.FloatTensor`, `Optional[X]`, `Union[X, None]`, `X | None`, or a string of one."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return None
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        members = [annotation.left, annotation.right]
    elif isinstance(annotation, ast.Subscript) \
            and (ast_dotted(annotation.value) or "").rpartition(".")[2] in ("Optional", "Union"):
        members = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
    else:
        members = [annotation]
    members = [m for m in members if not (isinstance(m, ast.Constant) and m.value is None)]
    if len(members) != 1 or not isinstance(members[0], (ast.Name, ast.Attribute)):
        return None
    return ast_dotted(members[0])


def _tensor_annotation(annotation: ast.expr | None) -> bool:
    """Whether a class-level field annotation declares a tensor (`Tensor`, `torch.FloatTensor`,
    `Optional[Tensor]`, `Tensor | None`, a string of one): as for mypy (PEP 526), the type of
    that attribute on the class's instances (dataclass and NamedTuple fields, HF `ModelOutput`s)."""
    name = _annotated_name(annotation)
    return bool(name) and name.rpartition(".")[2] in TENSOR_ANNOTATIONS


def _annotated_class(annotation: ast.expr | None) -> str | None:
    """The class a parameter annotation names, as spelled (`Scheduler`, `sched.Scheduler`,
    `Optional[Scheduler]`, `Scheduler | None`, `"Scheduler"`), when its last part is capitalized
    and it is no typing or torch name; None otherwise."""
    name = _annotated_name(annotation)
    if not name or not name.rpartition(".")[2][:1].isupper() or name in _NOT_INSTANCE_ANNOTATIONS \
            or name.partition(".")[0] in ("torch", "typing", "np", "numpy", "nn", "t"):
        return None
    return name


# Capitalized annotations that name no class whose methods a call could run
_NOT_INSTANCE_ANNOTATIONS = frozenset({"Tensor", "Any", "Callable", "Optional", "Union", "List", "Dict",
                                       "Tuple", "Sequence", "Mapping", "Iterable", "Iterator", "Type"})


_FACTORY = "factory:"  # `_local_instances`: a local bound to a call of a function, told apart from a class


def _local_instances(info: ModuleInfo, node: ast.FunctionDef | ast.AsyncFunctionDef,
                     bindings: list[ast.AST]) -> tuple[dict[str, str], dict[str, str], set[str]]:
    """The locals of a def that hold an instance of a class by how they are bound: a parameter
    annotated with a class (`_annotated_class`) and never rebound, or a name whose every binding
    in the def's own body is `v = Class(...)` of one class (instance_class). Name -> the class as
    spelled; whether it is a project class is decided where it is read. Then the locals whose
    every binding calls one function (`m = make_meter()`, FunctionInfo.factory_locals: name ->
    the function as spelled), and the parameters the body binds again. `bindings`: what _collect_calls found of the body's bindings (the traced
    branches, nested defs included: a name a nested def binds counts as bound again)."""
    found: dict[str, str] = {}
    args = node.args
    for a in (*args.posonlyargs, *args.args, *args.kwonlyargs):
        cls = _annotated_class(a.annotation)
        if cls:
            found[a.arg] = cls
    params = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    built: dict[int, str] = {}  # id of a Name bound by `v = Class(...)` -> the class as spelled
    for sub in bindings:
        if isinstance(sub, ast.Assign) and len(sub.targets) == 1 and isinstance(sub.targets[0], ast.Name) \
                and isinstance(sub.value, ast.Call):
            if name := instance_spelling(info, sub.value):
                built[id(sub.targets[0])] = name
            elif type(sub.value.func) is ast.Name and not sub.value.func.id[:1].isupper():
                # `m = make_meter()`: what the module's factory builds (_factory_instances)
                built[id(sub.targets[0])] = f"{_FACTORY}{sub.value.func.id}"
    dropped: set[str] = set()
    for sub in bindings:
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
            cls = built.get(id(sub))
            if cls is None or sub.id in params or found.setdefault(sub.id, cls) != cls:
                dropped.add(sub.id)
        elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            dropped.add(sub.name)
    kept = {k: v for k, v in found.items() if k not in dropped}
    return ({k: v for k, v in kept.items() if not v.startswith(_FACTORY)},
            {k: v[len(_FACTORY):] for k, v in kept.items() if v.startswith(_FACTORY)}, dropped & params)



def _built_calls(body: list[ast.stmt], names: set[str], bound: dict[str, tuple[int, list]] | None = None
                 ) -> list[tuple[str, str, int, int, tuple[CallRef, ...]]]:
    """Method calls on the locals `names` (bound to a call in the def) in the def's
    straight-line code: statements and `if` arms, not the bodies of loops, `try` or `with`
    blocks, where a graph break skips the frame instead (BRK406), nor nested defs. Each as
    (local, method, line of its latest binding above, line of the call, the calls made from the
    binding to the call). `bound`: the bindings seen above `body` (local -> (line, calls since))."""
    out: list[tuple[str, str, int, int, tuple[CallRef, ...]]] = []
    bound = {name: (line, list(since)) for name, (line, since) in (bound or {}).items()}
    for stmt in body:
        if isinstance(stmt, ast.If):
            out += _built_calls(stmt.body, names, bound) + _built_calls(stmt.orelse, names, bound)
            continue
        if isinstance(stmt, (*_BLOCK_NODES, *_DEFS, ast.ClassDef)):
            continue
        calls = [node for node in walk_nodes(stmt) if type(node) is ast.Call]
        refs = [(node, ref) for node in calls if (ref := call_ref(node)) is not None]
        for node in calls:
            func = node.func
            if type(func) is ast.Attribute and type(func.value) is ast.Name and func.value.id in bound:
                line, since = bound[func.value.id]
                # the statement's other calls too: its arguments run before it
                out.append((func.value.id, func.attr, line, node.lineno,
                            (*since, *(ref for other, ref in refs if other is not node))))
        refs = [ref for _, ref in refs]
        for _, since in bound.values():
            since.extend(refs)
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and stmt.targets[0].id in names and isinstance(stmt.value, ast.Call):
            bound[stmt.targets[0].id] = (stmt.lineno, [])
    return out


def _factory_instances(info: ModuleInfo) -> None:
    """Resolve the locals `_local_instances` found bound to a call of a function of this module
    (`m = make_meter()`, FunctionInfo.factory_locals): one whose every `return` builds one class
    (FunctionInfo.returned_class, `return Meter()`) gives an instance of that class, spelled as
    the module spells it, and its method calls are recorded as the class's
    (`through_local_instance`); any other is dropped. Imported factories are left for
    links.link_instances."""
    own = f"{info.name}."
    for _, fn in info.all_functions():
        if not fn.factory_locals:
            continue
        resolved = {}
        for name, factory in list(fn.factory_locals.items()):
            if factory in info.imports:
                continue
            del fn.factory_locals[name]
            found = info.functions.get(factory)
            if found is not None and found.returned_class:
                resolved[name] = found.returned_class.removeprefix(own)
        add_instances(fn, resolved)


def spelled_module_instances(info: ModuleInfo) -> dict[str, str]:
    """The module-level instances (ModuleInfo.global_instances), their classes spelled as the
    module's code does (`Meter`, not `train.Meter`, which `qualify` would read as
    `train.train.Meter` beside a `def train`)."""
    own = f"{info.name}."
    return {name: cls.removeprefix(own) for name, cls in info.global_instances.items()}


def passed_instances(info: ModuleInfo, top_level: list[CallRef], module_instances: dict[str, str]) -> None:
    """A module-level function's parameter that every call of it in this module passes a local
    instance of one class (`meter = Meter()` in `main()` or at module level, then
    `evaluate(model, x, meter)`, also through a compiled alias `fast = torch.compile(evaluate)`)
    holds an instance of that class, unless annotated or bound again in its body: it joins
    FunctionInfo.local_classes and its method calls are recorded as the class's, as
    `through_local_instance` does for the def's own locals (`top_level`: the module-level
    code's calls of names, `module_instances` its instances: spelled_module_instances). Calls in
    other modules are not seen (links.link_instances)."""
    sites: dict[str, list[dict[str, str | None]]] = {}
    callers = [(fn.local_classes, fn.calls) for _, fn in info.all_functions()]
    callers.append((module_instances, top_level))
    for instances, calls in callers:
        for ref in calls:
            key = info.compiled_aliases.get(ref.name, ref.name)
            target = info.functions.get(key) if ref.kind == "name" else None
            if target is None:
                continue
            passed = {target.params[i]: instances.get(arg) if arg else None
                      for i, arg in enumerate(ref.args) if i < len(target.params)}
            passed.update((kw, instances.get(arg) if arg else None) for kw, arg in ref.kwargs)
            sites.setdefault(key, []).append(passed)
    for name, found in sites.items():
        fn = info.functions[name]
        added = {}
        for param in fn.params:
            if param in fn.local_classes or param in fn.rebound:
                continue
            classes = {passed.get(param) for passed in found}
            if len(classes) == 1 and (cls := classes.pop()):
                added[param] = cls
        add_instances(fn, added)


def add_instances(fn: FunctionInfo, added: dict[str, str]) -> None:
    """Make the names of `added` (name -> class) local instances of `fn` (FunctionInfo.local_classes)
    and record their method calls as the class's (`through_local_instance`)."""
    if added:
        fn.local_classes = {**fn.local_classes, **added}
        fn.calls = [through_local_instance(r, added) if r.kind == "name" else r for r in fn.calls]


def through_local_instance(ref: CallRef, local_classes: dict[str, str]) -> CallRef:
    """`sched.step(...)` with `sched` a local instance (FunctionInfo.local_classes) as the call
    `Scheduler.step(...)`, which regions resolve on the class (its project method, if any)."""
    head, dot, rest = ref.name.partition(".")
    cls = local_classes.get(head)
    if not (cls and dot) or "." in rest:
        return ref
    return CallRef("name", f"{cls}.{rest}", ref.args, ref.kwargs)


def _through_loop_target(ref: CallRef, loop_attrs: dict[str, str]) -> CallRef:
    """`layer.m(...)` with `layer` a loop variable over `self.layers` as the call
    `self.layers.m(...)`, which regions resolve on the classes of that attribute's submodules."""
    head, dot, rest = ref.name.partition(".")
    attr = loop_attrs.get(head)
    if not (attr and dot) or "." in rest:
        return ref
    return CallRef("name", f"self.{attr}.{rest}", ref.args, ref.kwargs)


def call_ref(node: ast.Call) -> CallRef | None:
    """`self.m()`, `super().m()` or a dotted name's call as a CallRef (with its name arguments:
    a function passed in); None for other callees."""
    func = node.func
    if isinstance(func, ast.Attribute):
        recv = func.value
        if isinstance(recv, ast.Name) and recv.id == "self":
            args = tuple(_passed_name(a) for a in node.args)  # a setter given a function: `self.set_fn(f)`
            return CallRef("self", func.attr, args if any(args) else ())
        if isinstance(recv, ast.Call) and ast_dotted(recv.func) == "super":
            return CallRef("super", func.attr)
        if isinstance(recv, ast.Subscript) and isinstance(recv.value, ast.Attribute) \
                and isinstance(recv.value.value, ast.Name) and recv.value.value.id == "self":
            # `self.meters["train"].update(x)`: a method of what `__init__` put in `self.meters`
            args = tuple(_passed_name(a) for a in node.args)
            return CallRef("name", f"self.{recv.value.attr}.{func.attr}", args if any(args) else ())
    if isinstance(func, ast.Subscript) and isinstance(func.value, (ast.Name, ast.Attribute)):
        table = ast_dotted(func.value)  # `LOSSES[key](...)`: what the registry holds (ModuleInfo.registries)
        if table and not table.startswith("self."):
            args = tuple(_passed_name(a) for a in node.args)
            return CallRef("registry", table, args if any(args) else ())
    name = ast_dotted(func)
    if not name:
        return None
    args = tuple(_passed_name(a) for a in node.args)
    kwargs = tuple((k.arg, n) for k in node.keywords if k.arg and (n := _passed_name(k.value)))
    return CallRef("name", name, args if any(args) else (), kwargs)


def _passed_name(arg: ast.AST) -> str:
    """`f` or `self.m` for an argument that names a function (maybe), else ""."""
    if isinstance(arg, ast.Name):
        return arg.id
    if isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name) and arg.value.id == "self":
        return f"self.{arg.attr}"
    return ""


def _may_add_ops(info: ModuleInfo, node: ast.AST, params: set[str]) -> bool:
    """Whether `node` may put a tensor operation in the graph (so Dynamo has a point to resume from).

    Conservative towards True: arithmetic, torch calls, `self.m(...)` calls (submodules, methods),
    and method calls on positional parameters other than `self`.
    """
    if isinstance(node, ast.AugAssign):
        return True
    if isinstance(node, ast.BinOp):
        strings = (ast.JoinedStr,)
        return not (isinstance(node.left, strings) or (isinstance(node.left, ast.Constant)
                                                         and isinstance(node.left.value, str)))
    if isinstance(node, ast.Call):
        name = ast_dotted(node.func) or ""
        if info.qualify(name).startswith("torch.") and compiling_guard(info, node) is None:
            return True
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            return func.value.id in params
    return False


_DICT_VIEWS = {"items", "values", "keys"}
# What a function that traces no tensor operation may call (_quiet_calls): builtins that make no
# operation of non-tensor values, and methods that str, list and dict have and tensors do not.
_QUIET_BUILTINS = frozenset({"len", "isinstance", "issubclass", "getattr", "hasattr", "list", "dict", "tuple",
                             "set", "frozenset", "zip", "enumerate", "range", "str", "sorted", "reversed",
                             "type", "repr", "iter", "next", "super"})
_QUIET_METHODS = frozenset({"items", "keys", "values", "get", "append", "extend", "insert", "update",
                            "setdefault", "replace", "join", "startswith", "endswith", "strip", "lstrip",
                            "rstrip", "lower", "upper", "format", "partition", "rpartition", "split", "rsplit"})
# Parameter annotations of values that are never tensors (`key: str`, `names: List[str]`).
_QUIET_ANNOTATIONS = frozenset({"str", "int", "bool", "bytes", "None", "Optional", "List", "list", "Tuple",
                                "tuple", "Dict", "dict", "Set", "set", "FrozenSet", "frozenset", "Sequence",
                                "Iterable", "Union", "typing"})


def _quiet_calls(info: ModuleInfo, node: ast.FunctionDef | ast.AsyncFunctionDef,
                 method: bool) -> tuple[tuple[CallRef, ...] | None, list[Comprehension]]:
    """The project calls of `node` when its own code cannot put an operation in an FX graph, else
    None; with its own outermost comprehensions that Dynamo traces as frames of their own over an
    iterator it cannot step (_steps_unsupported_iterator, _references_module). Dynamo skips a
    frame that traces no operation ("No ops traced for the FX graph", measured on 2.13 and 2.15),
    so the comprehensions it runs start as frames of their own (BRK412).

    Strict: every parameter but a method's first is annotated with a non-tensor type (str, int,
    bool and containers of them), or unannotated with a string default (`sep=" "`) or read only
    as text (_only_formatted: `f"{prefix}/{k}"`, `"[" + tag + "]"`), no `*args`/`**kwargs`; every call is a builtin of
    _QUIET_BUILTINS, a str/list/dict method of _QUIET_METHODS on a value other than a module, or
    a call of `self.m`/`cls.m`, `super().m` or a bare name, which the caller checks on the project
    (frames.SkippedFrames._quiet); attributes are read only from `self`/`cls` (returned as
    CallRef("attr", name), checked there too) or from a global name (a module, an enum)."""
    args = node.args
    if args.vararg or args.kwarg or isinstance(node, ast.AsyncFunctionDef):
        return None, []
    params = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    static = any(ast_dotted(d) == "staticmethod" for d in node.decorator_list)
    first = params[0].arg if method and not static and params else ""
    loose: set[str] = set()  # unannotated: quiet only if read as text (checked after the walk)
    text_defaults: set[str] | None = None  # parameters defaulting to a string (`sep=" "`), on first need
    for a in params[1:] if first else params:
        if a.annotation is None:
            if text_defaults is None:
                text_defaults = {p.arg for p, d in _param_defaults(node)
                                 if isinstance(d, ast.Constant) and isinstance(d.value, str)}
            if a.arg not in text_defaults:
                loose.add(a.arg)
            continue
        nodes = walk_nodes(a.annotation)
        names = {n.id if isinstance(n, ast.Name) else n.attr for n in nodes if isinstance(n, (ast.Name, ast.Attribute))}
        if not names or not names <= _QUIET_ANNOTATIONS or any(  # a string annotation may name anything
                isinstance(n, ast.Constant) and isinstance(n.value, str) for n in nodes):
            return None, []
    calls: list[CallRef] = []
    comps: list[ast.AST] = []
    funcs: set[int] = set()  # the callees of calls seen (a parent is seen before its children)
    local = {a.arg for a in params}
    receivers: set[str] = set()  # names whose attributes are read: globals only, checked at the end
    # One pre-order walk of its own code (not nested defs), given up at the first operation.
    stack: list[ast.AST] = list(reversed(node.body))
    while stack:
        sub = stack.pop()
        kind = type(sub)
        if kind in (ast.Yield, ast.YieldFrom, ast.Await, ast.Lambda, ast.Global, ast.Nonlocal):
            return None, []
        if kind in _DEFS:
            continue  # a nested def's body is its own frame
        if kind is ast.Name:
            if type(sub.ctx) is ast.Store:
                local.add(sub.id)
            continue
        if kind in _COMPREHENSIONS:
            comps.append(sub)
        elif kind is ast.Attribute and type(sub.ctx) is ast.Load and id(sub) not in funcs:
            recv = sub.value
            if type(recv) is ast.Name and first and recv.id == first:
                calls.append(CallRef("attr", sub.attr))  # the caller checks it is no tensor
            elif type(recv) is ast.Name:
                receivers.add(recv.id)  # a local's attribute may be a tensor: a global's is not
            else:
                return None, []
        elif kind is ast.Call:
            func = sub.func
            funcs.add(id(func))
            if isinstance(func, ast.Name):
                if func.id not in _QUIET_BUILTINS:
                    calls.append(CallRef("name", func.id))
            elif isinstance(func, ast.Attribute):
                recv = func.value
                if isinstance(recv, ast.Name) and first and recv.id == first:
                    calls.append(CallRef("self", func.attr))
                elif isinstance(recv, ast.Call) and ast_dotted(recv.func) == "super" and not recv.args:
                    calls.append(CallRef("super", func.attr))
                elif func.attr not in _QUIET_METHODS or (
                        isinstance(recv, ast.Name) and info.qualify(recv.id).split(".")[0] in ("torch", "numpy")):
                    return None, []
            else:
                return None, []
        stack.extend(reversed(child_nodes(sub)))
    if receivers & local:
        return None, []
    # `f"{prefix}/{k}"`: a value only read as text puts no operation in a graph
    if loose and not loose <= _only_formatted(node):
        return None, []
    inner = {id(n) for c in comps for n in walk_nodes(c) if n is not c}
    return tuple({(c.kind, c.name): c for c in calls}.values()), [
        Comprehension(c.lineno, c.col_offset, c.end_lineno or c.lineno, c.end_col_offset or 0, True)
        for c in comps if id(c) not in inner and _steps_unsupported_iterator(info, c) and _references_module(info, c)]


def _param_defaults(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[ast.arg, ast.expr]]:
    """(parameter, default) for each parameter of `node` that has a default."""
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    return pairs + [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]


def _only_formatted(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Names that `node`'s body (nested defs included) reads only as text: an f-string field's
    value (`f"{name}"`, `f"{name!r:>8}"`), or a term of a `+` chain that holds a string literal
    (`"[" + name + "]"`: a tensor there would raise); never bound or read otherwise."""
    text: set[int] = set()  # ids of the Name nodes read as text
    inner: set[int] = set()  # BinOps inside a chain already seen
    for sub in walk_nodes(node):
        if type(sub) is ast.FormattedValue and type(sub.value) is ast.Name:
            text.add(id(sub.value))
        elif type(sub) is ast.BinOp and type(sub.op) is ast.Add and id(sub) not in inner:
            terms, todo = [], [sub]
            while todo:
                part = todo.pop()
                if type(part) is ast.BinOp and type(part.op) is ast.Add:
                    inner.add(id(part))
                    todo += [part.left, part.right]
                else:
                    terms.append(part)
            if any(type(t) is ast.JoinedStr or (type(t) is ast.Constant and isinstance(t.value, str)) for t in terms):
                text.update(id(t) for t in terms if type(t) is ast.Name)
    formatted: set[str] = set()
    other: set[str] = set()
    for sub in walk_nodes(node):
        if type(sub) is ast.Name:
            (formatted if id(sub) in text else other).add(sub.id)
    return formatted - other


def comprehension_calls(info: ModuleInfo, node: ast.FunctionDef | ast.AsyncFunctionDef,
                        found: list[ast.AST]) -> list[ComprehensionCalls]:
    """The comprehensions of `found` (collected from `node`'s body) that are `node`'s own (not
    in a nested def, lambda or another comprehension) and iterate a dict view, a `zip`, or a
    `self.<attr>` (maybe sliced), with the calls their bodies make. Measured on 2.13 and 2.15:
    range, tuple, list and `enumerate` iterators are rebuilt, these are not."""
    own_nodes = _own_nodes(node)
    own = {id(n) for n in own_nodes}
    inner = {id(sub) for comp in found for sub in walk_nodes(comp) if sub is not comp}
    consumers = {id(a): ast_dotted(n.func) or "" for n in own_nodes if isinstance(n, ast.Call)
                 for a in n.args if isinstance(a, ast.GeneratorExp)}
    lists = _list_locals(own_nodes)
    # a comprehension lies in one top-level statement: straight-line code unless that one is compound
    compound = [(stmt.lineno, stmt.end_lineno or stmt.lineno) for stmt in node.body
                if isinstance(stmt, (ast.If, *_BLOCK_NODES, *_DEFS, ast.ClassDef))]
    out: list[ComprehensionCalls] = []
    for comp in found:
        if id(comp) not in own or id(comp) in inner:
            continue
        first = comp.generators[0]  # type: ignore[attr-defined]
        it, target = first.iter, first.target
        if isinstance(it, ast.Subscript):
            it = it.value  # `self.layers[:2]` is a ModuleList too
        loop_vars: dict[str, str] = {}  # loop variable -> the `self.<attr>` whose elements it holds
        if isinstance(comp, ast.GeneratorExp):
            # consumed step by step (`sum(...)`, `any(...)`); `list(...)`/`tuple(...)` are unrolled
            if info.qualify(consumers.get(id(comp), "list")) in ("list", "tuple", "set", "dict", "sorted"):
                continue
            if isinstance(it, ast.Name) and it.id in lists:
                over = "generator:list"
            elif (holder := _self_attr(it)) and isinstance(it, ast.Attribute):
                over = f"generator:self.{holder}"
                if isinstance(target, ast.Name):
                    loop_vars[target.id] = holder
            else:
                continue
        elif isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr in _DICT_VIEWS \
                and not it.args:
            over = "view"
            holder = _self_attr(it.func.value)
            element = target.elts[-1] if isinstance(target, ast.Tuple) and it.func.attr == "items" else target
            if holder and it.func.attr != "keys" and isinstance(element, ast.Name):
                loop_vars[element.id] = holder
        elif isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "zip" \
                and info.qualify("zip") == "zip":
            over = "zip"
            if isinstance(target, ast.Tuple) and len(target.elts) == len(it.args):
                loop_vars.update((t.id, holder) for t, a in zip(target.elts, it.args)
                                 if isinstance(t, ast.Name) and (holder := _self_attr(a)))
        elif (holder := _self_attr(it)) and isinstance(it, ast.Attribute):
            over = f"self.{holder}"
            if isinstance(target, ast.Name):
                loop_vars[target.id] = holder
        else:
            continue
        parts: list[ast.AST] = [getattr(comp, k) for k in ("elt", "key", "value") if hasattr(comp, k)]
        parts += [i for g in comp.generators for i in g.ifs] + [g.iter for g in comp.generators[1:]]  # type: ignore[attr-defined]
        calls: list[tuple[int, CallRef]] = []
        elements: list[str] = []
        for part in parts:
            for sub in walk_nodes(part):
                if not isinstance(sub, ast.Call):
                    continue
                func = sub.func
                if isinstance(func, ast.Name) and func.id in loop_vars:
                    elements.append(loop_vars[func.id])  # `m(x) for m in self.layers`
                elif isinstance(func, ast.Subscript) and (holder := _self_attr(func.value)):
                    elements.append(holder)  # `self.heads[k](x)`
                elif (ref := call_ref(sub)) is not None:
                    calls.append((sub.lineno, ref))
        if calls or elements:
            span = Comprehension(comp.lineno, comp.col_offset, comp.end_lineno or comp.lineno,
                                 comp.end_col_offset or 0, True)
            out.append(ComprehensionCalls(span, over, tuple(calls), tuple(dict.fromkeys(elements)),
                                          not inside_spans(comp.lineno, compound)))
    return out


def _list_locals(nodes: list[ast.AST]) -> set[str]:
    """Locals bound once, to a list display or a list comprehension (`xs = [x, x * 2]`)."""
    bound: dict[str, int] = {}
    lists: set[str] = set()
    for n in nodes:
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            bound[n.id] = bound.get(n.id, 0) + 1
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                and isinstance(n.value, (ast.List, ast.ListComp)):
            lists.add(n.targets[0].id)
    return {name for name in lists if bound.get(name) == 1}


def _self_attr(node: ast.AST) -> str:
    """`attr` of `self.attr` or `self.attr[...]`, else ""."""
    if isinstance(node, ast.Subscript):
        node = node.value
    return node.attr if _is_self_attr(node) else ""  # type: ignore[attr-defined]


def inside_spans(line: int, spans: Iterable[tuple[int, int]]) -> bool:
    """Whether `line` lies in one of the (first, last) line `spans`."""
    return any(first <= line <= last for first, last in spans)


def _steps_unsupported_iterator(info: ModuleInfo, comp: ast.AST) -> bool:
    """False when the comprehension's outermost iterable is one whose iterator Dynamo steps."""
    it = comp.generators[0].iter  # type: ignore[attr-defined]
    if isinstance(it, ast.Tuple):
        return False
    if isinstance(it, ast.Call):
        name = ast_dotted(it.func) or ""
        if name in _STEPPABLE_CALLS or name.endswith(".size"):  # torch.Size is a tuple
            return False
    return not (isinstance(it, ast.Attribute) and it.attr == "shape")


def _references_module(info: ModuleInfo, comp: ast.AST) -> bool:
    """The comprehension's own frame names `self` or a torch module (its first iterable is
    evaluated by the enclosing frame and does not count)."""
    gens = comp.generators  # type: ignore[attr-defined]
    parts: list[ast.AST] = [getattr(comp, k) for k in ("elt", "key", "value") if hasattr(comp, k)]
    parts += [g.target for g in gens] + [i for g in gens for i in g.ifs] + [g.iter for g in gens[1:]]
    for part in parts:
        for sub in walk_nodes(part):
            if isinstance(sub, ast.Name) and (sub.id == "self" or info.qualify(sub.id) in TORCH_MODULES):
                return True
    return False


def _returns_marker(info: ModuleInfo, node: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """The trace_marker of what `node` returns when every `return` of its own code wraps a
    function in one (`return torch.compiler.disable(fn)`, `disable(recursive=False)(fn)`)."""
    markers = {_marker_return(info, sub) for sub in _own_nodes(node) if isinstance(sub, ast.Return)}
    return markers.pop() if len(markers) == 1 else None


def _marker_return(info: ModuleInfo, ret: ast.Return) -> str | None:
    """The trace_marker a `return` wraps its value in (`return disable(fn)`), or None."""
    value = ret.value
    marker = None
    if isinstance(value, ast.Call) and (value.args or value.keywords):
        marker = trace_marker(info, value)
        if marker is None and isinstance(value.func, ast.Call) and value.args:
            marker = trace_marker(info, value.func)
    return marker


def _registered_into(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """The module-level dict a decorator def stores the function it is given in and gives back
    unchanged: `TABLE[key] = fn` then `return fn`, in the def or a def nested in it (`def
    register(name): def deco(fn): LOSSES[name] = fn; return fn; return deco`, or `def
    register(fn): LOSSES[fn.__name__] = fn; return fn`); "" for any other def."""
    defs = (ast.FunctionDef, ast.AsyncFunctionDef)
    for sub in (node, *(s for s in node.body if isinstance(s, defs))):  # itself and its own nested defs
        params = {a.arg for a in (*sub.args.posonlyargs, *sub.args.args)}
        stored = [s.targets[0].value.id for s in sub.body if isinstance(s, ast.Assign) and len(s.targets) == 1
                  and isinstance(s.targets[0], ast.Subscript) and isinstance(s.targets[0].value, ast.Name)
                  and isinstance(s.value, ast.Name) and s.value.id in params]
        returned = [s.value.id for s in sub.body if isinstance(s, ast.Return) and isinstance(s.value, ast.Name)]
        if stored and returned and returned[-1] in params:  # gives the function back: Dynamo calls it as is
            return stored[0]
    return ""


def _closes_over(comp: ast.AST, held: set[str]) -> bool:
    """Whether the comprehension's own frame reads one of the enclosing def's locals `held`
    (tensor_locals): a free variable that Dynamo's has_tensor_in_frame finds a tensor in."""
    from breakscan.static.tensor_locals import free_names

    return not free_names(comp).isdisjoint(held)


def _calls_compile(source: str) -> bool:
    """Whether `source` may hold a `compile(`/`optimize(` call (module_calls has something to find).
    A substring test first: the regex's lookbehind leaves it no literal prefix to skip ahead to,
    so alone it tried every position (2.3 CPU s on transformers' 2,860 files; 0.5 s this way)."""
    return ("compile" in source and _COMPILE_CALL.search(source) is not None) or \
        ("optimize" in source and _OPTIMIZE_CALL.search(source) is not None)


def _names_dynamo_settings(source: str) -> bool:
    """Whether dynamo_settings has something to read in `source`: `torch._dynamo.config` by any
    import spelling, a `fullgraph=`/`nopython=`/`dynamic=` option, a TORCHDYNAMO_ variable. The substring
    tests first: four times faster on transformers than one regex."""
    return (("_dynamo" in source and _DYNAMO_CONFIG.search(source) is not None) or "TORCHDYNAMO_" in source
            or (("fullgraph" in source or "nopython" in source or "dynamic=" in source or "dynamic =" in source)
                and _COMPILE_OPTION.search(source) is not None))


def _unshadowed(reads: set[str], node: ast.FunctionDef | ast.AsyncFunctionDef, bindings: list[ast.AST],
                declared_global: set[str]) -> set[str]:
    """The `v.attr` reads of `reads` whose `v` the def does not bind itself: a parameter (any
    kind) or a name it stores (`sched = Other()`, a `for`/`with` target, a nested def) is a local
    for the whole body, so `sched.x` there is not the module-level instance's property. A name
    declared `global` (anywhere in the module) stays the instance."""
    args = node.args
    local = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg) if a}
    for bound in bindings:
        if type(bound) is ast.Name:
            local.add(bound.id)
        elif type(bound) in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            local.add(bound.name)
    local -= declared_global
    return {read for read in reads if read.partition(".")[0] not in local}


def _instance_names(tree: ast.Module) -> frozenset[str]:
    """Module-level names bound to a call (`sched = Scheduler()`) or imported by name (`from .run
    import sched`): the names whose attribute reads FunctionInfo.global_reads records."""
    names: set[str] = set()
    for stmt in tree.body:
        if type(stmt) is ast.Assign and type(stmt.value) is ast.Call:
            names.update(t.id for t in stmt.targets if type(t) is ast.Name)
        elif type(stmt) is ast.ImportFrom:
            names.update(a.asname or a.name for a in stmt.names if a.name != "*")
    return frozenset(names)


def build_module_info(path: Path, tree: ast.Module, source: str = "", name: str | None = None) -> ModuleInfo:
    """Index one module parsed by `ast.parse`; `source` enables cheap text pre-filters."""
    info = ModuleInfo(path=path, name=name or module_name_for(path))
    indexer = _Indexer(info, source)
    indexer.instance_names = _instance_names(tree)
    indexer.statements(tree.body)
    if not source or _calls_compile(source) or "torch.compile" in info.imports.values():
        indexer.module_calls(tree)  # also for `tc(fn)` with `tc` bound to torch.compile
    if not source or _names_dynamo_settings(source):
        from breakscan.static.dynamo_settings import collect

        info.dynamo = collect(info, tree)
    info.rebound_globals = {n for n, count in indexer.literal_assigns.items()
                            if count > 1 or n in indexer.globals_declared}
    from breakscan.static.module_globals import collect as collect_globals

    collect_globals(info, tree, indexer.globals_declared)
    top_level: list[CallRef] = []  # every module-level call of a name, for passed_instances
    module_instances = spelled_module_instances(info)
    for stmt in tree.body:  # module-level code (defs' bodies: _collect_calls)
        if module_instances and isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call):
            note_passed_instances(info, stmt.value, module_instances)
        if isinstance(stmt, (ast.Assign, ast.Expr, ast.AnnAssign, ast.If)):
            for node in walk_nodes(stmt):
                if type(node) is ast.Call and (node.args or node.keywords):
                    note_construction(info, node)
                    ref = call_ref(node)
                    if ref is not None and ref.kind == "name":
                        top_level.append(ref)
                        if ref.args or ref.kwargs:
                            info.top_calls.append(ref)
    _factory_instances(info)
    passed_instances(info, top_level, module_instances)
    info.called_names = frozenset(ref.name.rpartition(".")[2] for ref in chain(
        info.top_calls, *(fn.calls for _, fn in info.all_functions())) if ref.kind == "name" and (ref.args or ref.kwargs))
    return info


def bound_classes(info: ModuleInfo) -> dict[str, str]:
    """Names module `info` binds to what a call of a qualified callable builds: `var_classes`
    (anywhere, recorded in modules that compile something), the module-level assignments of a
    call of any module (`trainer = Trainer(model)` in a script that leaves compiling to the
    class: ModuleInfo.module_vars), and the locals of its module-level defs that hold one class's
    instance (`engine = Engine(model)` in `main()`: FunctionInfo.local_classes; methods' locals,
    most of them submodules an `__init__` builds, are left out). A local name two defs bind to
    different classes is left out: the module's calls by that name are not one class's. Which of
    them are project classes is the reader's lookup."""
    found = {name: callee for name, callee in info.module_vars.items() if callee}
    found.update(info.var_classes)
    local: dict[str, str] = {}
    clashing: set[str] = set()
    for fn in info.functions.values():
        for name, spelled in fn.local_classes.items():
            if name not in found and local.setdefault(name, info.qualify(spelled)) != info.qualify(spelled):
                clashing.add(name)
    found.update((name, cls) for name, cls in local.items() if name not in clashing)
    return found


@dataclass
class ProjectIndex:
    """All scanned modules, by dotted name, with lookups of qualified functions and classes."""

    modules: dict[str, ModuleInfo] = field(default_factory=dict)
    _disabled: set[str] = field(default_factory=set)
    _nonrecursive: set[str] = field(default_factory=set)
    _untraced: set[str] = field(default_factory=set)
    _foreign_stores: set[str] = field(default_factory=set)
    _disallowed: set[str] = field(default_factory=set)
    compiling_helpers: set[str] = field(default_factory=set)  # qualified names
    _bound_markers: dict[str, str] | None = None  # _marked_by_factory, cached until the next add
    _importers: dict[str, frozenset[str]] | None = None  # importers(), cached until the next add
    _by_path: dict[str, ModuleInfo] | None = None  # module_at(), cached until the next add
    _constructions: dict | None = None  # passed_classes(), cached until the next add
    # per-key answers over the whole project (class_attr_kinds, str_enum_attrs, holds_tensor_attr,
    # property_names): table -> key -> answer, emptied on the next add (_memo)
    _memos: dict[str, dict] = field(default_factory=dict)
    _splits: dict = field(default_factory=dict)  # _split(), cached until the next add
    _instances_bound: dict[str, int] | None = None  # instances_bound(), cached until the next add
    _registered: dict[str, list[str]] | None = None  # _filled_entries(), cached until the next add

    def add(self, info: ModuleInfo) -> None:
        """Register a module; a later module with the same dotted name keeps both reachable."""
        key = info.name
        if key in self.modules and self.modules[key].path != info.path:
            key = f"{key}@{info.path}"
        self.modules[key] = info
        self._disabled |= info.disabled
        self._nonrecursive |= info.nonrecursive
        self._untraced |= info.untraced
        self._foreign_stores |= info.foreign_stores
        self._disallowed |= info.disallowed
        self.compiling_helpers |= {f"{info.name}.{n}" for n in info.compiling_helpers}
        self._bound_markers = None  # worked out again over the whole project on next use
        self._importers = None
        self._by_path = None
        self._constructions = None
        self._memos = {}
        self._splits = {}
        self._instances_bound = None
        self._registered = None

    def _marked_by_factory(self) -> dict[str, str]:
        """Names bound to what a project factory returns when it wraps a function in a trace
        marker (`def make(): return torch.compiler.disable(f)`): `LOG = make()` at module level,
        `self.log = make()` in `__init__` -> their trace_marker. Dynamo treats the call of such a
        name as it treats the marked function (measured on 2.13: `disable` breaks, GB0098)."""
        if self._bound_markers is None:
            found: dict[str, str] = {}
            for info in self.modules.values():
                for name, callee in info.module_vars.items():
                    if callee and (marker := self._factory_marker(callee)):
                        found[f"{info.name}.{name}"] = marker
                for cls in info.classes.values():
                    for attr, called in cls.submodules.items():
                        if len(called) == 1 and (marker := self._factory_marker(called[0])):
                            found[f"{cls.qualname}.{attr}"] = marker
            self._bound_markers = found
        return self._bound_markers

    def _factory_marker(self, callee: str) -> str | None:
        hit = self.lookup_function(callee)
        return hit[0].marker_returns.get(hit[1].name) if hit is not None and "." not in hit[1].qualname else None

    def _split(self, qualname: str) -> tuple[ModuleInfo, str] | None:
        """(the longest scanned module `qualname` starts with, the rest), or None."""
        if qualname in self._splits:
            return self._splits[qualname]
        parts = qualname.split(".")
        found = None
        for i in range(len(parts) - 1, 0, -1):
            mod = self.modules.get(".".join(parts[:i]))
            if mod is not None:
                found = mod, ".".join(parts[i:])
                break
        self._splits[qualname] = found
        return found

    def lookup_function(self, qualname: str) -> tuple[ModuleInfo, FunctionInfo] | None:
        """A module-level function by qualified name, following re-exports."""
        return self._lookup(qualname, "functions")

    def lookup_alias(self, qualname: str) -> str | None:
        """The source of a module-level type alias (`OptTensor = Optional[Tensor]`) by qualified
        name, following re-exports; None when unknown or bound to different types."""
        found = self._lookup(qualname, "type_aliases")
        return found[1] or None if found is not None else None

    def is_type_var(self, qualname: str) -> bool:
        """Whether `qualname` names a module-level `TypeVar` of the project, following re-exports."""
        return self._lookup(qualname, "type_vars") is not None

    def is_str_enum(self, qualname: str) -> bool:
        """Whether the class `qualname` is a project enum whose members are strings: `str` and
        `enum.Enum` up its project MRO (`class Weight(str, Enum)`), or `enum.StrEnum`."""
        return self.inherits(qualname, _STR_BASES) and self.inherits(qualname, _ENUM_BASES)

    def str_enum_attrs(self, cls_qualname: str) -> frozenset[str]:
        """The attributes of the class (its own `__init__` or a project base's) that hold a member
        of a project `str` enum (is_str_enum): `__init__` stores one written (`self.mode =
        Mode.FAST`) or a parameter defaulting to one (`self.mode = mode`, `mode=Mode.FAST`) that no
        project call of the class passes a string literal, and no other method stores it.
        Cached: every function walk of the class asks (call_sites._class_env)."""
        return self._memo("str_enum_attrs", cls_qualname, self._member_attrs, cls_qualname)

    def _memo(self, table: str, key, compute, *args):
        """`compute(*args)` for `key` of `table`, worked out once until the next `add`."""
        store = self._memos.get(table)
        if store is None:
            store = self._memos[table] = {}
        found = store.get(key)
        if found is None:
            found = store[key] = compute(*args)
        return found

    def _member_attrs(self, cls_qualname: str) -> frozenset[str]:
        found: set[str] = set()
        seen: set[str] = set()
        for cls in self.project_mro(cls_qualname):
            for attr, (param, member) in cls.member_attrs.items():
                if attr in seen:
                    continue
                seen.add(attr)
                owner = member.rpartition(".")[0]
                stored_elsewhere = any(f"self.{attr}" in fn.attr_stores for name, fn in cls.methods.items()
                                       if name != "__init__")
                if self.is_str_enum(owner) and not stored_elsewhere and not (
                        param and "lit:str" in self.passed_classes(cls, param, functions=True)):
                    found.add(attr)
        return frozenset(found)

    def lookup_class(self, qualname: str) -> tuple[ModuleInfo, ClassInfo] | None:
        """A class by qualified name, following re-exports."""
        return self._lookup(qualname, "classes")

    def _lookup(self, qualname: str, table: str, _depth: int = 0):
        hit = self._split(qualname)
        if hit is None or _depth > 10:
            return None
        mod, rest = hit
        found = getattr(mod, table).get(rest)
        if found is not None:
            return mod, found
        if rest in mod.imports and mod.imports[rest] != qualname:  # a re-export
            return self._lookup(mod.imports[rest], table, _depth + 1)
        return None

    def is_disabled(self, qualname: str) -> bool:
        """Whether `qualname` names a `torch.compiler.disable`d function in the project (also
        what a factory returning one was bound to: `_marked_by_factory`)."""
        return qualname in self._disabled or self._marked_by_factory().get(qualname) in ("disable", "nonrecursive")

    def is_nonrecursive(self, qualname: str) -> bool:
        """Whether `qualname` is disabled with `recursive=False`: Dynamo skips its frame only and
        traces the functions it calls as frames of their own (measured on torch 2.13)."""
        return qualname in self._nonrecursive or self._marked_by_factory().get(qualname) == "nonrecursive"

    def is_disallowed(self, qualname: str) -> bool:
        """Whether a module of the project passes the torch function `qualname` to
        `torch._dynamo.disallow_in_graph`: its calls break in every region (torch 2.13)."""
        return qualname in self._disallowed

    def is_stored_from_outside(self, qualname: str) -> bool:
        """Whether some module re-binds the global `qualname` by attribute (`consts.MASK = ...`)."""
        return qualname in self._foreign_stores

    def is_untraced(self, qualname: str) -> bool:
        """Whether Dynamo calls `qualname` without tracing its body and without a graph break
        (`nonstrict_trace`, `allow_in_graph`, `assume_constant_result`, `leaf_function`)."""
        return qualname in self._untraced or self._marked_by_factory().get(qualname) == "untraced"

    def method(self, cls_qualname: str, name: str, _depth: int = 0) -> tuple[ModuleInfo, ClassInfo, FunctionInfo] | None:
        """Find method `name` on a class or its project base classes (depth-first MRO)."""
        hit = self.lookup_class(cls_qualname)
        if hit is None or _depth > 20:
            return None
        mod, cls = hit
        if name in cls.methods:
            return mod, cls, cls.methods[name]
        for base in cls.bases:
            found = self.method(base, name, _depth + 1)
            if found:
                return found
        return None

    def importers(self, module: str) -> frozenset[str]:
        """The scanned modules that import module `module` or a name from it (`import m`,
        `from m import f`; ModuleInfo.imports), built once for the index on first use."""
        if self._importers is None:
            found: dict[str, set[str]] = {}
            for info in self.modules.values():
                for target in info.imports.values():
                    found.setdefault(target, set()).add(info.name)
                    found.setdefault(target.rpartition(".")[0], set()).add(info.name)
            self._importers = {name: frozenset(users) for name, users in found.items()}
        return self._importers.get(module, frozenset()) - {module}

    def module_at(self, path: str) -> ModuleInfo | None:
        """The module indexed from file `path` (as `str(info.path)` spells it), or None."""
        if self._by_path is None:
            self._by_path = {str(info.path): info for info in self.modules.values()}
        return self._by_path.get(path)

    def instance_method(self, qualname: str) -> tuple[ModuleInfo, ClassInfo, FunctionInfo] | None:
        """`pkg.mod.model.embed`: method `embed` of the project class a module-level name is bound
        to once (`model = Encoder(...)`, ModuleInfo.global_instances, re-exports followed). Dynamo
        inlines `model.embed(x)` like any method call; None for anything else."""
        owner, _, meth = qualname.rpartition(".")
        hit = self._split(owner) if owner else None
        for _ in range(10):
            if hit is None or "." in hit[1]:
                return None
            mod, var = hit
            if var in mod.global_instances:
                return self.method(mod.global_instances[var], meth)
            if var in mod.global_factory_calls:  # `model = build(cfg)`: the class build returns
                built = self.built_class(mod.global_factory_calls[var])
                return self.method(built, meth) if built else None
            target = mod.imports.get(var)
            if not target or target == f"{mod.name}.{var}":
                return None
            hit = self._split(target)
        return None

    def passed_classes(self, cls: ClassInfo, param: str, functions: bool = False) -> list[str]:
        """The classes the project's calls of `cls` build in the argument for `__init__`'s
        parameter `param` (ModuleInfo.constructions, by position or keyword), joined over every
        call: `Compose([Flip(), Noise()])` -> [Flip, Noise] for `ops`. With `functions`, the
        functions passed by name are listed too, as "fn:<qualified name>" (note_construction)."""
        init = cls.methods.get("__init__")
        if init is None:
            return []
        if self._constructions is None:
            found: dict[str, list[tuple[int | str, tuple[str, ...]]]] = {}
            for info in self.modules.values():
                for name, slot, built in info.constructions:
                    hit = self.lookup_class(name)  # `augs.Compose`, re-exported from `augs.ops`
                    if hit is not None:
                        found.setdefault(hit[1].qualname, []).append((slot, built))
            self._constructions = found
        position = init.params.index(param) - 1 if param in init.params else -2
        out: dict[str, None] = {}
        for slot, built in self._constructions.get(cls.qualname, ()):
            if slot == param or slot == position:
                out.update(dict.fromkeys(built))
        return list(out) if functions else [b for b in out if not b.startswith(("fn:", "lit:"))]

    def init_bound_functions(self, cls: ClassInfo, bound: str) -> list[str]:
        """The qualified functions a ClassInfo.callable_attrs entry "arg:__init__:<position>"
        (`self.loss_fn = loss_fn` in `__init__`) stands for: what the project's calls of `cls`
        pass there (passed_functions); [] when that is not known."""
        init = cls.methods.get("__init__")
        position = int(bound.rpartition(":")[2]) + 1  # after `self`
        if init is None or position >= len(init.params):
            return []
        return self.passed_functions(cls, init.params[position]) or []

    def passed_functions(self, cls: ClassInfo, param: str) -> list[str] | None:
        """The qualified functions the project's calls of `cls` pass by name for `__init__`'s
        parameter `param` (`Net(hinge)` -> ["train.hinge"] for `loss_fn`); None when some call
        passes something else there (a class, or nothing recorded), so the join says nothing."""
        built = self.passed_classes(cls, param, functions=True)
        if not built or not all(b.startswith("fn:") for b in built):
            return None
        return [b[3:] for b in built]

    def instances_bound(self, cls_qualname: str) -> int:
        """How many names the project's modules bind to an instance of the class `cls_qualname`
        (`bound_classes`: `model = Net()` anywhere in a module that compiles something, at module
        level in any other, resolved through re-exports)."""
        if self._instances_bound is None:
            counts: dict[str, int] = {}
            for info in self.modules.values():
                for built in bound_classes(info).values():
                    hit = self.lookup_class(built)
                    if hit is not None:
                        counts[hit[1].qualname] = counts.get(hit[1].qualname, 0) + 1
            self._instances_bound = counts
        return self._instances_bound.get(cls_qualname, 0)

    def built_class(self, factory_qualname: str) -> str:
        """The qualified project class that calling the function `factory_qualname` builds
        (FunctionInfo.returned_class: every `return` builds it); "" when unknown."""
        found = self.lookup_function(factory_qualname)
        return found[1].returned_class if found is not None else ""

    def numeric_attrs(self, cls_qualname: str) -> set[str]:
        """Attributes `__init__` binds to int/float literals, including project bases."""
        return self.inherited(cls_qualname, "numeric_attrs")

    def inherited(self, cls_qualname: str, attr_set: str, _depth: int = 0) -> set[str]:
        """A ClassInfo set field (`numeric_attrs`, `buffer_attrs`...) unioned over project bases."""
        hit = self.lookup_class(cls_qualname)
        if hit is None or _depth > 20:
            return set()
        found = set(getattr(hit[1], attr_set))
        for base in hit[1].bases:
            found |= self.inherited(base, attr_set, _depth + 1)
        return found

    def is_module_class(self, qualname: str) -> bool:
        """Whether `qualname` (qualified) names an `nn.Module` class: a `torch.nn.` class
        (`torch.nn.Linear`) or a project class with such a base up its project MRO. Reads only
        class names and bases, which the cache's types summary holds."""
        stack, seen = [qualname], set()
        while stack:
            name = stack.pop()
            if name.startswith("torch.nn.") and name.rsplit(".", 1)[-1][:1].isupper():
                return True
            hit = self.lookup_class(name)
            if hit is None or name in seen or len(seen) > 40:
                continue
            seen.add(name)
            stack.extend(hit[1].bases)
        return False

    def tensor_subclass_init_args(self, qualname: str) -> bool:
        """Whether project class `qualname` (qualified) derives from `torch.Tensor` and the first
        `__init__` up its project MRO takes a positional parameter without a default besides
        `self` (MONAI's `MetaTensor.__init__(self, x, affine=None, ...)`). Dynamo (2.13, 2.15)
        traces that `__init__` of a tensor subclass without the call's arguments: "Argument
        mismatch" (GB7312 on 2.13, GB0088 on 2.15) and a graph break at the call."""
        if not self.inherits(qualname, TENSOR_CLASSES):
            return False
        for cls in self.project_mro(qualname):
            init = cls.methods.get("__init__")
            if init is not None:
                return init.required > 1
        return False

    def inherits(self, qualname: str, bases: Collection[str]) -> bool:
        """Whether the class `qualname` (qualified) or a class up its project MRO lists one of
        `bases` (qualified names: `torch.nn.Sequential`) as a base."""
        return any(base in bases for cls in self.project_mro(qualname) for base in cls.bases)

    def project_mro(self, qualname: str, limit: int = 40) -> Iterator[ClassInfo]:
        """The project class `qualname` (qualified) and its project bases, breadth first (bases in
        the order written: Python's MRO for single inheritance), each once; classes outside the
        project end the walk on their side. At most `limit` + 1 classes (a guard on cycles of
        re-exports)."""
        queue, seen = [qualname], set()
        while queue:
            name = queue.pop(0)
            hit = self.lookup_class(name)
            if hit is None or name in seen or len(seen) > limit:
                continue
            seen.add(name)
            yield hit[1]
            queue.extend(hit[1].bases)

    def registry(self, qualname: str, _depth: int = 0) -> list[str]:
        """The qualified functions the registry `qualname` (`pkg.losses.LOSSES`, or a name bound
        to one of its entries, here or through an import) holds (ModuleInfo.registries); [] when
        it is not one."""
        owner, _, name = qualname.rpartition(".")
        module = self.modules.get(owner)
        held = module.registries.get(name, []) if module is not None else []
        if _depth < 5 and any(h.startswith("reg:") for h in held):  # an entry of an imported registry
            return [q for h in held for q in (self.registry(h[4:], _depth + 1) if h.startswith("reg:") else [h])]
        if module is not None and name in module.registries:
            return held + [q for q in self._filled_entries().get(qualname, []) if q not in held]
        return held

    def registry_functions(self, qualname: str) -> list[tuple[ModuleInfo, FunctionInfo]]:
        """The project functions the registry `qualname` holds (`registry`), each a callee of
        `LOSSES[key](...)`; its classes are left out (calling one builds an instance, it runs no
        `forward`)."""
        return [hit for q in self.registry(qualname) if (hit := self.lookup_function(q)) is not None]

    def instance_call(self, cls_qualname: str) -> tuple[ModuleInfo, ClassInfo, FunctionInfo] | None:
        """What calling an instance of the project class `cls_qualname` runs: its project
        `__call__` (Dynamo traces it, measured on 2.13), else its `forward` (`nn.Module.__call__`
        runs it)."""
        return self.method(cls_qualname, "__call__") or self.method(cls_qualname, "forward")

    def is_registrar(self, qualname: str) -> bool:
        """Whether the qualified function `qualname` is a registrar (ModuleInfo.registrars): a
        decorator that stores the function and gives it back unchanged, so the decorated
        function's parameters are still inferred from its calls."""
        owner, _, name = qualname.rpartition(".")
        module = self.modules.get(owner)
        return module is not None and name in module.registrars

    def _filled_entries(self) -> dict[str, list[str]]:
        """Registry (qualified) -> the functions other modules put in it: the module-level
        functions a registrar decorates (`@register("huber")` over `def huber`, in any module
        that imports the registrar: ModuleInfo.registrars) and those assigned to an item of it
        (ModuleInfo.registry_items)."""
        if self._registered is None:
            tables = {f"{m.name}.{fn}": f"{m.name}.{table}" for m in self.modules.values()
                      for fn, table in m.registrars.items()}
            found: dict[str, list[str]] = {}
            for m in self.modules.values():
                for table, fn in m.registry_items:
                    found.setdefault(table, []).append(fn)
            if tables:
                for m in self.modules.values():
                    for f in m.functions.values():
                        for dec in f.decorators:
                            if dec in tables:
                                found.setdefault(tables[dec], []).append(f"{m.name}.{f.qualname}")
            self._registered = found
        return self._registered

    def callable_attr(self, cls_qualname: str, attr: str, _depth: int = 0) -> list[str]:
        """What `self.<attr>` is bound to (ClassInfo.callable_attrs) in the class or its project bases."""
        hit = self.lookup_class(cls_qualname)
        if hit is None or _depth > 20:
            return []
        found = hit[1].callable_attrs.get(attr)
        if found:
            return found
        for base in hit[1].bases:
            if found := self.callable_attr(base, attr, _depth + 1):
                return found
        return []

    def is_compile(self, qual: str, _depth: int = 0) -> bool:
        """Whether the qualified name `qual` is `torch.compile` (COMPILE_CALLS), or a name another
        scanned module binds to it (`compile_eager = functools.partial(torch.compile, ...)` in
        `tools/compiling.py`, imported as `from .compiling import compile_eager`), through up to
        five re-exports."""
        if qual in COMPILE_CALLS:
            return True
        owner, _, name = qual.rpartition(".")
        mod = self.modules.get(owner)
        target = mod.imports.get(name) if mod is not None else None
        return target is not None and _depth < 5 and self.is_compile(target, _depth + 1)

    def property_names(self, cls_qualname: str) -> frozenset[str]:
        """Names of the property getters (`@property`, `functools.cached_property`) a class defines
        or inherits from project bases; the first definition up the bases wins, as in Python.
        Cached until the next `add`."""
        return self._memo("property_names", cls_qualname, self._property_names, cls_qualname)

    def _property_names(self, cls_qualname: str) -> frozenset[str]:
        found: set[str] = set()
        shadowed: set[str] = set()
        for cls in self.project_mro(cls_qualname, limit=20):
            for name, fn in cls.methods.items():
                if name not in shadowed and PROPERTY_DECORATORS & set(fn.decorators):
                    found.add(name)
                shadowed.add(name)
        return frozenset(found)

    def class_attr_kinds(self, cls_qualname: str, _depth: int = 0) -> tuple[set[str], set[str], dict[str, list[str]]]:
        """(tensor attrs, scalar attrs, submodules) of a class including project bases.
        Cached: callers must not change what it returns."""
        return self._memo("class_attr_kinds", cls_qualname, self._class_attr_kinds, cls_qualname, _depth)

    def holds_tensor_attr(self, classes: Collection[str], attr: str) -> bool:
        """Whether `attr` is a tensor attribute (class_attr_kinds: a parameter, a buffer, or a
        tensor `self.<attr>` stores) of each of `classes`, all of them project classes: what
        `self.scheduler.timesteps` reads when `__init__` stores a `Scheduler` in `self.scheduler`."""
        if not classes:
            return False
        return self._memo("holds_tensor_attr", (tuple(classes), attr), self._holds_tensor_attr, classes, attr)

    def _holds_tensor_attr(self, classes: Collection[str], attr: str) -> bool:
        return all(self.lookup_class(q) is not None and attr in self.class_attr_kinds(q)[0] for q in classes)

    def _class_attr_kinds(self, cls_qualname: str, _depth: int) -> tuple[set[str], set[str], dict[str, list[str]]]:
        hit = self.lookup_class(cls_qualname)
        if hit is None or _depth > 20:
            return set(), set(), {}
        _, cls = hit
        tensors, scalars, subs = set(cls.tensor_attrs), set(cls.scalar_attrs), dict(cls.submodules)
        for attr, found in list(subs.items()):
            if found and found[0].startswith("arg:"):  # `self.ops = nn.ModuleList(ops)`
                # what the calls pass, else the parameter's annotation (`scheduler: LinearScheduler`)
                annotated = [q[4:] for q in found[1:] if q.startswith("ann:")]
                resolved = [*(self.passed_classes(cls, found[0][4:]) or annotated),
                            *(q for q in found[1:] if not q.startswith("ann:"))]
                if resolved:
                    subs[attr] = resolved
                else:
                    del subs[attr]
        for base in cls.bases:
            t, s, m = self.class_attr_kinds(base, _depth + 1)
            tensors |= t
            scalars |= s
            for k, v in m.items():
                subs.setdefault(k, v)
        return tensors, scalars, subs
