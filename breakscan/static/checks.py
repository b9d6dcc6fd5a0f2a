"""The rule matcher: one libcst visitor over a module's compile-region code, driven by `rules/`.

A rule's `[match]` table says what it matches: `calls` (qualified callee names, fnmatch
globs), `tensor_methods` (methods called on a tensor), `logger_methods` (methods of a
logger object), or `check` (a named structural check implemented here, in CHECKS).
"""

from __future__ import annotations

import fnmatch
import re
import traceback
from dataclasses import dataclass

import libcst as cst

from breakscan.catalog import Rule
from breakscan.static.index import ClassInfo, ModuleInfo, ProjectIndex
from breakscan.static.regions import Region
from breakscan.static.syntax import REORDERABLE_PRINT, compiling_guard, dotted_name
from breakscan.static.tensors import TENSORISH, T, TypeEnv, annotation_kind, join_kinds
from breakscan.static.walk import walk

SCALAR_CONVERSIONS = {"int", "float", "bool", "complex", "math.floor", "math.ceil", "math.trunc",
                      "operator.index"}
SIZE_METHODS = {"narrow", "new_zeros", "new_ones", "new_empty", "new_full", "view", "reshape", "expand",
                "repeat", "tile", "unflatten"}
SIZE_FACTORIES = {"torch.zeros", "torch.ones", "torch.empty", "torch.full", "torch.rand", "torch.randn",
                  "torch.randint", "torch.arange", "torch.linspace", "torch.eye",
                  # NumPy is traced as torch under Dynamo: a tensor size breaks the same way (GB0033)
                  "numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full", "numpy.arange",
                  "numpy.linspace", "numpy.eye"}
HOOK_METHODS = {"register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook",
                "register_full_backward_pre_hook", "register_backward_hook",
                "register_module_forward_hook"}
LOCK_FACTORIES = {"threading.Lock", "threading.RLock", "threading.Semaphore", "threading.Condition",
                  "threading.BoundedSemaphore", "multiprocessing.Lock", "multiprocessing.RLock"}
LOGGER_NAMES = {"logger", "log", "_logger", "LOGGER", "_LOGGER", "logging"}


@dataclass(frozen=True)
class Hit:
    """A rule matched at a node, before positions are resolved."""

    rule: Rule
    node: cst.CSTNode
    region: Region  # the region function being walked (the node lies inside it)
    function: cst.FunctionDef  # that function's libcst node


class RuleIndex:
    """The catalog's `[match]` tables, indexed for the visitor."""

    def __init__(self, rules: list[Rule]) -> None:
        self.calls: list[tuple[str, Rule]] = []
        self.tensor_methods: dict[str, list[Rule]] = {}
        self.logger_methods: dict[str, list[Rule]] = {}
        self.checks: dict[str, list[Rule]] = {}
        self._call_memo: dict[str, list[Rule]] = {}
        self.fixable = frozenset(r.id for r in rules if r.autofix is not None)  # rules with a rewrite
        for rule in rules:
            match = rule.match
            for pattern in match.get("calls", ()):
                self.calls.append((pattern, rule))
            for meth in match.get("tensor_methods", ()):
                self.tensor_methods.setdefault(meth, []).append(rule)
            for meth in match.get("logger_methods", ()):
                self.logger_methods.setdefault(meth, []).append(rule)
            if "check" in match:
                self.checks.setdefault(match["check"], []).append(rule)

    def rules_for_call(self, qualname: str) -> list[Rule]:
        """Rules whose `calls` patterns match a qualified callee name (memoized per name)."""
        found = self._call_memo.get(qualname)
        if found is None:
            found = self._call_memo[qualname] = [
                rule for pattern, rule in self.calls
                if qualname == pattern or fnmatch.fnmatchcase(qualname, pattern)]
        return found


# `.item()`, `.tolist()`... exist on tensors (and NumPy arrays, which Dynamo also traces as
# tensors), not on Python containers: they match a receiver of unknown type too.
DISTINCTIVE_TENSOR_METHODS = {"item", "tolist", "data_ptr", "nonzero", "masked_select", "argwhere",
                              "requires_grad_"}
_TENSOR_NAME = re.compile(r"(^|_)(x|y|h|mask|masks|states|ids|embeds|embeddings|tensor|tensors|inputs?|"
                          r"hidden|logits|labels|bias|weights?|scores|values|keys|query|queries|features|"
                          r"pixel_values|input_values|probs|target|targets|grad|out|output)$")
_SCALAR_NAME = re.compile(r"^(use_|output_|return_|has_|do_|num_|n_|max_|min_|enable_|training|"
                          r"layer_idx|cache_position|past_key_value)")


def _optional_param_kind(name: str) -> T:
    """`forward(self, attention_mask=None)`: a tensor by name, a flag by name, else unknown."""
    if _SCALAR_NAME.match(name):
        return T.SCALAR
    return T.TENSOR if _TENSOR_NAME.search(name) else T.UNKNOWN


def _param_kind(param: cst.Param, is_forward_or_root: bool) -> T:
    kind = annotation_kind(param.annotation.annotation if param.annotation else None)
    if kind is not None:
        return kind
    if param.annotation is not None:
        return T.UNKNOWN  # annotated with something that is not a tensor type we know
    if is_forward_or_root and _SCALAR_NAME.match(param.name.value):
        return T.SCALAR
    default = param.default
    if default is not None:
        if isinstance(default, (cst.Integer, cst.Float, cst.SimpleString)) or (
            isinstance(default, cst.Name) and default.value in ("True", "False")):
            return T.SCALAR
        if isinstance(default, cst.Name) and default.value == "None":
            return _optional_param_kind(param.name.value) if is_forward_or_root else T.UNKNOWN
        return T.UNKNOWN
    return T.TENSOR if is_forward_or_root else T.UNKNOWN


def _all_params(node: cst.FunctionDef) -> list[cst.Param]:
    """Positional-only, ordinary and keyword-only parameters, in order (no `*args`/`**kwargs`)."""
    return [*node.params.posonly_params, *node.params.params, *node.params.kwonly_params]


_METADATA_ATTRS = {"dtype", "device", "is_cuda", "training", "requires_grad", "is_meta", "is_cpu"}


def _is_metadata_condition(expr: cst.BaseExpression) -> bool:
    """A test on dtype/device/training...: what follows it in `and`/`or` may never run."""
    for node in (expr.left, *(c.comparator for c in expr.comparisons)) if isinstance(expr, cst.Comparison) else (expr,):
        if isinstance(node, cst.Attribute) and node.attr.value in _METADATA_ATTRS:
            return True
    if isinstance(expr, cst.BooleanOperation):
        return _is_metadata_condition(expr.left) or _is_metadata_condition(expr.right)
    return False


class Binder:
    """Binds assignment targets to inferred kinds as a walk leaves each statement (`self.env`)."""

    env: TypeEnv | None

    def leave_Assign(self, original_node: cst.Assign) -> None:
        if self.env is not None:
            kind = self.env.kind(original_node.value)
            elements = (self.env.element_kinds(original_node.value)
                        if any(isinstance(t.target, (cst.Tuple, cst.List)) for t in original_node.targets)
                        else None)
            for target in original_node.targets:
                self.env.bind(target.target, kind, elements)

    def leave_AnnAssign(self, original_node: cst.AnnAssign) -> None:
        if self.env is not None:
            kind = annotation_kind(original_node.annotation.annotation)
            if kind is None and original_node.value is not None:
                kind = self.env.kind(original_node.value)
            self.env.bind(original_node.target, kind or T.UNKNOWN)

    def leave_AugAssign(self, original_node: cst.AugAssign) -> None:
        if self.env is not None and self.env.is_tensor(original_node.value):
            self.env.bind(original_node.target, T.TENSOR)

    def leave_NamedExpr(self, original_node: cst.NamedExpr) -> None:
        if self.env is not None:
            self.env.bind(original_node.target, self.env.kind(original_node.value))

    def visit_For(self, node: cst.For) -> None:
        if self.env is None:
            return
        self.env.bind(node.target, self._element_kind(node.iter))

    def _element_kind(self, it: cst.BaseExpression) -> T:
        assert self.env is not None
        kind = self.env.kind(it)
        if kind in (T.TENSOR_SEQ, *TENSORISH):
            return T.TENSOR
        if kind is T.MODULE:
            return T.MODULE
        if isinstance(it, cst.Call) and dotted_name(it.func) == "range":
            return T.SCALAR
        return T.UNKNOWN



class ReturnCollector(Binder):
    """The kinds a function returns: binds its body in order and records each `return`'s kind.

    Nested functions, classes and lambdas are skipped; a generator's result is not its return value.
    """

    def __init__(self, env: TypeEnv) -> None:
        self.env = env
        self.kinds: list[T] = []
        self.tuples: list[list[T] | None] = []  # per `return`: its tuple display's element kinds
        self.generator = False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Yield(self, node: cst.Yield) -> bool:
        self.generator = True
        return False

    def visit_Return(self, node: cst.Return) -> bool:
        assert self.env is not None
        self.kinds.append(self.env.kind(node.value) if node.value is not None else T.SCALAR)
        self.tuples.append(self.env.element_kinds(node.value) if isinstance(node.value, cst.Tuple) else None)
        return False

    def result(self) -> T:
        """The joined return kind (tensors.join_kinds), UNKNOWN for a generator."""
        return T.UNKNOWN if self.generator else join_kinds(self.kinds)

    def tuple_result(self) -> list[T] | None:
        """Element-wise joined kinds when every `return` gives a tuple display of one length
        (`return a, b`), else None (a generator, a bare `return`, another value). Falling off the
        end is allowed: unpacking its `None` raises, so an unpacking caller never sees it."""
        if self.generator or not self.tuples or any(t is None for t in self.tuples):
            return None
        lengths = {len(t) for t in self.tuples if t is not None}
        if len(lengths) != 1:
            return None
        return [join_kinds([t[i] for t in self.tuples if t is not None]) for i in range(lengths.pop())]


def _is_private(name: str) -> bool:
    """`_helper`, not `__init__`: a name other modules are not meant to call."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


# Decorators that keep a private function a plain function whose calls are all visible here.
_TRANSPARENT_DECORATORS = {"staticmethod", "classmethod"}
_PRIVATE_WORD = re.compile(r"\b_\w+")


class CallSites:
    """Calls of a module's private functions and methods, found in one untyped pass over its `def`s.

    `sites[name]` lists `(call, caller key)` for `name(...)` (module functions) and
    `sites["." + name]` for `<expr>.name(...)` (methods, whatever the receiver: a superset of the
    calls that reach one class's method). `escaped` holds the names also used otherwise: passed or
    stored as a value, a nested `def` of that name, or named anywhere the pass does not see
    (module level, class bodies, strings, comments; found by counting the name in `source`).
    """

    def __init__(self, functions: dict[tuple[str, int], cst.FunctionDef], source: str | None,
                 names: set[str], methods: set[str]) -> None:
        """`names`: private module-level function names; `methods`: private method names;
        `source`: the module's text (None: every name is escaped)."""
        self.names = names
        self.methods = methods
        self.sites: dict[str, list[tuple[cst.Call, tuple[str, int]]]] = {}
        self.by_caller: dict[tuple[str, int], set[int]] = {}  # caller key -> ids of its site calls
        self.escaped: set[str] = set()
        self._seen: dict[str, int] = {}
        self._callees: set[int] = set()  # ids of Name nodes that are a call's callee or a def's name
        wanted = names | methods
        for key, node in functions.items():
            self._key, self._root = key, node
            walk(node, self)
        if source is None:
            self.escaped |= wanted
            return
        counts: dict[str, int] = {}
        for word in _PRIVATE_WORD.findall(source):
            if word in wanted:
                counts[word] = counts.get(word, 0) + 1
        self.escaped |= {name for name, n in counts.items() if n != self._seen.get(name, 0)}

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._callees.add(id(node.name))
        if node is not self._root and node.name.value in self.names | self.methods:
            self.escaped.add(node.name.value)  # a nested def shadows the module's function

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Name) and func.value in self.names:
            self.sites.setdefault(func.value, []).append((node, self._key))
            self._callees.add(id(func))
        elif isinstance(func, cst.Attribute) and func.attr.value in self.methods:
            self.sites.setdefault("." + func.attr.value, []).append((node, self._key))
            self._callees.add(id(func.attr))
        else:
            return
        self.by_caller.setdefault(self._key, set()).add(id(node))

    def visit_Name(self, node: cst.Name) -> None:
        name = node.value
        if name in self.names or name in self.methods:
            self._seen[name] = self._seen.get(name, 0) + 1
            if id(node) not in self._callees:
                self.escaped.add(name)


class ArgKinds(Binder):
    """Binds one caller's body in order and records the kinds of the arguments of chosen calls.

    `out[id(call)]` is `[(keyword or None, kind), ...]`, or None when the call unpacks `*args` /
    `**kwargs`. Calls inside lambdas and nested classes are not recorded (their scope is unknown
    here); a nested `def` gets its own scope with parameters of unknown kind.
    """

    def __init__(self, env: TypeEnv, wanted: set[int],
                 out: dict[int, list[tuple[str | None, T]] | None]) -> None:
        self.env = env
        self.wanted = wanted
        self.out = out
        self._envs: list[TypeEnv | None] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self._envs.append(self.env)
        self.env = TypeEnv(self.env.info, parent=self.env) if self.env is not None else None
        if self.env is not None:
            for param in _all_params(node):
                self.env.names[param.name.value] = T.UNKNOWN
        return True

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.env = self._envs.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Call(self, node: cst.Call) -> None:
        if id(node) in self.wanted and self.env is not None:
            record = None if any(a.star for a in node.args) else [
                (a.keyword.value if a.keyword is not None else None, self.env.kind(a.value))
                for a in node.args]
            self.out[id(node)] = record


def _join_arguments(kinds: list[T]) -> T:
    """The kind of a parameter from the kinds passed at all its call sites: the same tensor kind
    everywhere (tensors and boolean tensors: a tensor), or Python values and shapes everywhere (a
    shape if any is one: `torch.div(x.size(1), w)` on them folds), else UNKNOWN. A parameter that
    is a tensor at some calls and a Python value at others stays unknown."""
    distinct = set(kinds)
    if not kinds:
        return T.UNKNOWN
    if len(distinct) == 1 and distinct <= {*TENSORISH, T.TENSOR_SEQ}:
        return kinds[0]
    if distinct <= set(TENSORISH):
        return T.TENSOR
    if distinct <= {T.SCALAR, T.SHAPE}:
        return T.SHAPE if T.SHAPE in distinct else T.SCALAR
    return T.UNKNOWN


def _is_string_literal(expr: cst.BaseExpression) -> bool:
    """A plain string constant (`"msg"`, `"a" "b"`): not an f-string or any other expression."""
    if isinstance(expr, cst.SimpleString):
        return True
    if isinstance(expr, cst.ConcatenatedString):
        return _is_string_literal(expr.left) and _is_string_literal(expr.right)
    return False


class RegionVisitor(Binder):
    """Visits one module; checks only code inside region functions (see regions.py)."""

    def __init__(self, info: ModuleInfo, index: ProjectIndex, regions: dict[int, Region],
                 rules: RuleIndex,
                 functions: dict[tuple[str, int], cst.FunctionDef] | None = None,
                 source: str | None = None) -> None:
        """`regions` maps `id()` of this module's libcst FunctionDefs to their Region;
        `functions` (syntax.indexed_functions) lets calls to this module's functions and methods
        take their return kinds; `source` is the module's text (CallSites: without it no
        parameter is inferred from call sites)."""
        self.functions = functions or {}
        self.source = source
        self._returns: dict[str, T | None] = {}  # qualname -> kind; None while being inferred
        self._tuple_returns: dict[str, list[T] | None] = {}  # qualname -> element kinds (tuple_result)
        self._inferred: dict[str, dict[str, T] | None] = {}  # qualname -> parameter kinds from call sites
        self._sites: CallSites | None = None  # built on first need
        self._arg_kinds: dict[int, list[tuple[str | None, T]] | None] = {}  # ArgKinds.out, all callers
        self._walked_callers: set[tuple[str, int]] = set()
        self._dispatch: list[ClassInfo | None] = []  # the class `self.m()` resolves on, while ArgKinds walks
        self._computed: list[dict[str, int]] = []  # per scope: tensor local -> self._breaks at its assignment
        self._breaks = 0  # graph-break hits emitted so far
        self.info = info
        self.index = index
        self.regions = regions
        self.rules = rules
        self.hits: list[Hit] = []
        self.errors: list[CheckError] = []  # visit_/leave_ methods that raised (see on_error)
        self.env: TypeEnv | None = None
        self.region: Region | None = None
        self._stack: list[tuple[TypeEnv | None, Region | None]] = []
        # The module makes `print` reorderable (breakscan --fix's BRK201 rewrite): no break.
        self._reorders_print = bool(source) and any(
            info.qualify(m.group("alias")) == "torch" for m in REORDERABLE_PRINT.finditer(source or ""))
        self._test_nodes: set[int] = set()
        self._conditional: set[int] = set()  # operands behind a dtype/device/training test
        self._root: tuple[Region, cst.FunctionDef] | None = None  # what `check_function` walks
        self._stores: set[int] = set()  # subscripts that are assignment targets
        self._params: list[set[str]] = []  # parameter names of enclosing region functions
        self._scalar_params: list[set[str]] = []  # int/float parameters of compiled roots
        self._str_params: list[set[str]] = []  # str parameters of compiled roots

    def check_function(self, region: Region, node: cst.FunctionDef) -> None:
        """Walk one region function (nested functions included)."""
        self._root = (region, node)
        walk(node, self)
        self._root = None

    # scopes ------------------------------------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self._stack.append((self.env, self.region))
        self._computed.append({})
        region = self.regions.get(id(node))
        if region is not None:
            self.region = region
            self.env = self._root_env(region)
            self._bind_params(node, region)
        elif self.region is not None and self.env is not None:  # nested def inside a region
            self.env = TypeEnv(self.info, parent=self.env)
            self._bind_params(node, None)
        else:
            self.env, self.region = None, None
            return True
        self._note_params(node, region)
        return True

    def _note_params(self, node: cst.FunctionDef, region: Region | None) -> None:
        params = _all_params(node)
        names = {p.name.value for p in params} - {"self", "cls"}
        scalars: set[str] = set()
        strings: set[str] = set()
        if region is not None and len(region.chain) <= 1 and node.name.value != "forward":
            for p in params:
                ann = p.annotation.annotation if p.annotation else None
                ann_name = dotted_name(ann) if ann is not None else None
                if ann_name in ("int", "float") or isinstance(p.default, (cst.Integer, cst.Float)):
                    scalars.add(p.name.value)
                if ann_name == "str" or isinstance(p.default, cst.SimpleString):
                    strings.add(p.name.value)
        self._params.append(names)
        self._scalar_params.append(scalars)
        self._str_params.append(strings)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.env, self.region = self._stack.pop()
        self._computed.pop()
        if self._params:
            self._params.pop()
            self._scalar_params.pop()
            self._str_params.pop()

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return self.region is not None

    # tensors computed in the current graph (BRK108) --------------------------------------------
    def leave_Assign(self, original_node: cst.Assign) -> None:
        super().leave_Assign(original_node)
        for target in original_node.targets:
            self._track(target.target, original_node.value)

    def leave_AnnAssign(self, original_node: cst.AnnAssign) -> None:
        super().leave_AnnAssign(original_node)
        self._track(original_node.target, original_node.value)

    def leave_AugAssign(self, original_node: cst.AugAssign) -> None:
        super().leave_AugAssign(original_node)
        self._track(original_node.target, None, augmented=True)

    def leave_NamedExpr(self, original_node: cst.NamedExpr) -> None:
        super().leave_NamedExpr(original_node)
        self._track(original_node.target, original_node.value)

    def visit_For(self, node: cst.For) -> None:
        super().visit_For(node)
        self._track(node.target, None)

    def _track(self, target: cst.BaseExpression, value: cst.BaseExpression | None,
               augmented: bool = False) -> None:
        """Note which local names now hold a tensor computed in the current graph (`_computes`)."""
        if not self._computed or self.env is None:
            return
        if isinstance(target, cst.Name):
            name = target.value
            if self.env.lookup(name) in TENSORISH and (augmented or (value is not None and self._computes(value))):
                self._computed[-1][name] = self._breaks
            else:
                self._computed[-1].pop(name, None)
        elif isinstance(target, (cst.Tuple, cst.List)):
            pairs = (isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(target.elements)
                     and not any(isinstance(e, cst.StarredElement) for e in (*value.elements, *target.elements)))
            for i, element in enumerate(target.elements):
                inner = value.elements[i].value if pairs else value  # type: ignore[union-attr]
                self._track(element.value, inner, augmented)

    def _computes(self, expr: cst.BaseExpression) -> bool:
        """Whether `expr` is a tensor computed in the graph being traced, not one of its inputs.

        Facts from Dynamo 2.13 (backend "eager"): a 0-d tensor that is an input of the graph (a
        parameter of the compiled frame, a buffer, a value computed before a graph break, which
        the resumed graph receives) can be a size with no break; one computed in the graph breaks
        there (GB0033). So a parameter, an attribute (`self.count`) and a plain alias do not count;
        an operation does (`n + 0`, `x.size(-1) - n`, `lengths.max()`, `lengths[0]`), and so does a
        local assigned from one with no graph break predicted between (RegionVisitor._breaks). A call
        of a function of this module does not: a break inside it would make its result an input.
        """
        if isinstance(expr, cst.Name):
            at = self._computed[-1].get(expr.value) if self._computed else None
            return at is not None and at == self._breaks
        if isinstance(expr, (cst.Attribute, cst.Tuple, cst.List)):
            return False
        return not (isinstance(expr, cst.Call) and self._callee(expr) is not None)

    def _root_env(self, region: Region) -> TypeEnv:
        return self._class_env(region.cls)

    def _class_env(self, cls: ClassInfo | None) -> TypeEnv:
        """A function scope knowing `cls`'s parameters, buffers, scalars and submodules."""
        tensors: set[str] = set()
        scalars: set[str] = set()
        modules: set[str] = set()
        if cls is not None:
            tensors, scalars, subs = self.index.class_attr_kinds(cls.qualname)
            modules = set(subs)
        return TypeEnv(self.info, self_tensors=tensors, self_scalars=scalars, self_modules=modules,
                       returns=self._return_kind, tuple_returns=self._return_elements)

    def _callee(self, call: cst.Call) -> tuple[str, ClassInfo | None] | None:
        """(qualname, class) of a function or `self` method defined in this module, if `call` calls one."""
        func = call.func
        if isinstance(func, cst.Name):
            fn = self.info.functions.get(func.value)
            return (fn.qualname, None) if fn is not None else None
        # While ArgKinds walks a caller, `self` is that caller's class; else the region's.
        cls = self._dispatch[-1] if self._dispatch else (self.region.cls if self.region is not None else None)
        if (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self"
                and cls is not None):
            found = self.index.method(cls.qualname, func.attr.value)
            if found is not None and found[0].name == self.info.name:
                return found[2].qualname, found[1]
        return None

    def _return_kind(self, call: cst.Call) -> T:
        """The joined kind of what a called function of this module returns (UNKNOWN if recursive)."""
        return self._returns_of(call)[0]

    def _return_elements(self, call: cst.Call) -> list[T] | None:
        """The element kinds of the tuple a called function of this module always returns, or None
        (`a, b = self._split(x)` binds `a` and `b` one by one)."""
        return self._returns_of(call)[1]

    def _returns_of(self, call: cst.Call) -> tuple[T, list[T] | None]:
        """(joined kind, tuple element kinds) of what a called function of this module returns.

        Memoized. Its parameters take only what their annotations and defaults say, not the kinds
        of their call sites: a call site's arguments may depend on this very return (`n, i =
        self._f(x)` then `self._g(n)`), and a cycle would leave those unknown for good.
        """
        callee = self._callee(call)
        if callee is None:
            return T.UNKNOWN, None
        qualname, cls = callee
        if qualname in self._returns:
            return self._returns[qualname] or T.UNKNOWN, self._tuple_returns.get(qualname)
        node = self.functions.get((qualname, 0))
        if node is None or (qualname, 1) in self.functions:  # redefined: which one runs is unknown
            return T.UNKNOWN, None
        self._returns[qualname] = None
        env = self._class_env(cls)
        env.names.update(self._param_kinds(node, None, cls is not None, False))
        collector = ReturnCollector(env)
        walk(node.body, collector)
        kind, elements = collector.result(), collector.tuple_result()
        self._returns[qualname] = kind
        self._tuple_returns[qualname] = elements
        return kind, elements

    def _bind_params(self, node: cst.FunctionDef, region: Region | None) -> None:
        assert self.env is not None
        is_root = region is not None and (len(region.chain) <= 1 or node.name.value == "forward")
        qualname = region.function.qualname if region is not None else None  # nested defs: no call sites
        self.env.names.update(self._param_kinds(
            node, qualname, region is not None and region.cls is not None, is_root))

    def _param_kinds(self, node: cst.FunctionDef, qualname: str | None, has_self: bool,
                     is_root: bool) -> dict[str, T]:
        """Kinds of a function's parameters (`self`/`cls` first when `has_self` is left out).

        From annotations and defaults (`_param_kind`); a parameter that leaves unknown and has no
        annotation takes the kinds passed at its call sites in this module (`_inferred_params`),
        when `qualname` names the function.
        """
        kinds: dict[str, T] = {}
        inferred: dict[str, T] | None = None
        for i, param in enumerate(_all_params(node)):
            name = param.name.value
            if i == 0 and has_self and name in ("self", "cls"):
                continue
            kind = _param_kind(param, is_root)
            if kind is T.UNKNOWN and param.annotation is None and qualname is not None:
                if inferred is None:
                    inferred = self._inferred_params(qualname)
                kind = inferred.get(name, T.UNKNOWN)
            kinds[name] = kind
        return kinds

    # call-site parameter inference ----------------------------------------------------------
    def _call_sites(self) -> CallSites:
        """This module's private call sites (built once, on first need)."""
        if self._sites is None:
            names = {name for name in self.info.functions if _is_private(name)}
            methods = {name for cls in self.info.classes.values() for name in cls.methods if _is_private(name)}
            self._sites = CallSites(self.functions, self.source, names, methods)
        return self._sites

    def _inferred_params(self, qualname: str) -> dict[str, T]:
        """Kinds of a private function's parameters, joined over every call in this module.

        A private function (`_name`, not dunder) that is defined once, undecorated (or a static or
        class method), never used other than by a call (CallSites.escaped) and called at least once
        here: each parameter every call passes, positionally or by keyword, gets the join of the
        argument kinds (`_join_arguments`: one tensor kind, or Python values and shapes; a mix is
        unknown). A call that unpacks `*args`/`**kwargs`, or that lies where ArgKinds cannot see it,
        leaves every parameter unknown. Calls from other modules are not seen. Memoized; {} while
        being inferred (recursion). The region walk treats these parameters, like every parameter,
        as inputs of the graph (`_computes`).
        """
        if qualname in self._inferred:
            return self._inferred[qualname] or {}
        self._inferred[qualname] = None
        found = self._infer_from_sites(qualname)
        self._inferred[qualname] = found
        return found

    def _infer_from_sites(self, qualname: str) -> dict[str, T]:
        node = self.functions.get((qualname, 0))
        if node is None or (qualname, 1) in self.functions or not _is_private(node.name.value):
            return {}
        decorators = {dotted_name(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator)
                      for d in node.decorators}
        if not decorators <= _TRANSPARENT_DECORATORS:
            return {}
        name = node.name.value
        is_method = "." in qualname
        sites = self._call_sites()
        calls = sites.sites.get("." + name if is_method else name)
        if not calls or name in sites.escaped:
            return {}
        positional = [*node.params.posonly_params, *node.params.params]
        by_keyword = {p.name.value for p in [*node.params.params, *node.params.kwonly_params]}
        passed: dict[str, list[T]] = {p.name.value: [] for p in _all_params(node)}
        for call, caller in calls:
            args = self._site_arguments(call, caller)
            if args is None:
                return {}
            skip = 0
            if is_method and "staticmethod" not in decorators:
                recv = call.func.value if isinstance(call.func, cst.Attribute) else None
                unbound = (isinstance(recv, cst.Name) and recv.value in self.info.classes
                           and "classmethod" not in decorators)  # `Class._m(obj, x)`
                skip = 0 if unbound else 1
            values = [kind for keyword, kind in args if keyword is None]
            for i, param in enumerate(positional[skip:]):
                if i < len(values):
                    passed[param.name.value].append(values[i])
            for keyword, kind in args:
                if keyword is not None and keyword in by_keyword:
                    passed[keyword].append(kind)
        # A parameter some call does not pass (its default, or an error) stays unknown.
        joined = {param: _join_arguments(kinds) for param, kinds in passed.items() if len(kinds) == len(calls)}
        return {param: kind for param, kind in joined.items() if kind is not T.UNKNOWN}

    def _site_arguments(self, call: cst.Call, caller: tuple[str, int]) -> list[tuple[str | None, T]] | None:
        """The argument kinds of one call site (ArgKinds), walking its caller once; None if unknown
        (a call ArgKinds does not see, or one in a caller being walked: recursion)."""
        if caller not in self._walked_callers:
            self._walked_callers.add(caller)
            self._walk_caller(caller)
        return self._arg_kinds.get(id(call))

    def _walk_caller(self, key: tuple[str, int]) -> None:
        """Record the argument kinds of every private call in one module- or class-level `def`,
        with the same parameter kinds the region walk gives it (its own call sites included)."""
        node = self.functions[key]
        qualname = key[0]
        head, _, _ = qualname.rpartition(".")
        cls = self.info.classes.get(head) if head else None
        region = self.regions.get(id(node))
        is_root = region is not None and (len(region.chain) <= 1 or node.name.value == "forward")
        env = self._class_env(cls)
        env.names.update(self._param_kinds(node, qualname if key[1] == 0 else None, cls is not None, is_root))
        wanted = self._call_sites().by_caller.get(key, set())
        self._dispatch.append(cls)
        try:
            walk(node.body, ArgKinds(env, wanted, self._arg_kinds))
        finally:
            self._dispatch.pop()

    # traced-branch pruning -----------------------------------------------------------------
    def visit_If(self, node: cst.If) -> bool:
        if self.region is None:
            return True
        known = compiling_guard(self.info, node.test, self.index.compiling_helpers)
        if known is None:
            self._check_test(node.test)
            return True
        if known:
            walk(node.body, self)
        elif node.orelse is not None:
            walk(node.orelse, self)
        return False

    def visit_While(self, node: cst.While) -> None:
        if self.region is not None:
            self._check_test(node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        if self.region is not None:
            self._check_test(node.test)

    def visit_Assert(self, node: cst.Assert) -> bool:
        # Dynamo 2.13 turns `assert <tensor>` into a traced check, but only with no message or a
        # constant string: any other message (an f-string, `"..." + str(n)`) makes it branch on the
        # tensor (GB0170). The test itself runs as anywhere: `.item()`, `int(t)`, a list comparison
        # holding a tensor break there too. The message runs only when the assert fails.
        if self.region is not None and self.env is not None:
            if node.msg is not None and not _is_string_literal(node.msg) and self.env.is_tensor(node.test):
                self._emit_check("tensor-branch", node.test)
            walk(node.test, self)
        return False

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if id(node) in self._conditional:
            return
        if self.region is not None and isinstance(node.operator, cst.Not):
            self._check_test(node.expression)

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        if self.region is not None and id(node) not in self._test_nodes:
            self._check_test(node.left)  # the left operand's truth decides short-circuiting

    def _check_test(self, test: cst.BaseExpression) -> None:
        assert self.env is not None
        if isinstance(test, cst.BooleanOperation):
            self._test_nodes.add(id(test))
            self._check_test(test.left)
            if _is_metadata_condition(test.left):  # the right side runs only for some configs
                self._conditional.add(id(test.right))
            else:
                self._check_test(test.right)
            return
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            return  # visit_UnaryOperation checks the operand
        if isinstance(test, cst.Attribute) and test.attr.value == "training":
            self._emit_check("training-branch", test)
        elif isinstance(test, cst.Comparison) and self._compares_str_param(test):
            self._emit_check("string-argument", test)
        elif self.env.is_tensor(test):
            self._emit_check("tensor-branch", test)

    def _compares_str_param(self, test: cst.Comparison) -> bool:
        if not self._str_params or not self._str_params[-1] or len(test.comparisons) != 1:
            return False
        op = test.comparisons[0].operator
        right = test.comparisons[0].comparator
        if not isinstance(op, (cst.Equal, cst.NotEqual, cst.In, cst.NotIn)):
            return False
        names = self._str_params[-1]
        return (isinstance(test.left, cst.Name) and test.left.value in names
                and isinstance(right, (cst.SimpleString, cst.Tuple, cst.List, cst.Set)))

    # calls -------------------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        if self.region is None or self.env is None:
            return
        func = node.func
        if isinstance(func, cst.Attribute):
            meth = func.attr.value
            if meth in self.rules.tensor_methods and (self.env.is_tensor(func.value) or (
                    meth in DISTINCTIVE_TENSOR_METHODS and self.env.kind(func.value) is T.UNKNOWN)):
                for rule in self.rules.tensor_methods[meth]:
                    self._emit(rule, node)
                return
            if meth in self.rules.logger_methods and self._is_logger(func.value):
                for rule in self.rules.logger_methods[meth]:
                    self._emit(rule, node)
                return
            if meth in SIZE_METHODS and self.env.is_tensor(func.value):
                self._size_arguments(node)
            if meth in HOOK_METHODS and self._is_module_receiver(func.value):
                self._emit_check("hook-in-forward", node)
        name = dotted_name(func)
        if name is None:
            return
        qual = self.info.qualify(name)
        if self._is_shadowed(name):
            return
        if not (qual == "print" and self._reordered_print(node)):
            for rule in self.rules.rules_for_call(qual):
                self._emit(rule, node)
        args = [a.value for a in node.args if not a.keyword and not a.star]
        if qual in SIZE_FACTORIES:
            self._size_arguments(node)
        if qual in SCALAR_CONVERSIONS and len(args) == 1 and self.env.is_tensor(args[0]):
            self._emit_check("scalar-conversion", node)
        elif qual in ("str", "repr") and len(args) == 1 and self.env.is_tensor(args[0]):
            self._emit_check("tensor-str", node)
        elif qual == "range" and any(self.env.is_tensor(a) for a in args):
            self._emit_check("tensor-range", node)
        elif qual == "next" and args and self._is_passed_in(args[0]):
            self._emit_check("next-on-argument", node)
        elif qual == "torch.where" and len(args) == 1 and not any(a.keyword for a in node.args):
            self._emit_check("where-one-arg", node)
        elif qual == "setattr" and len(args) >= 2 and isinstance(args[1], cst.SimpleString) \
                and args[1].evaluated_value == "requires_grad":
            self._emit_check("requires-grad-set", node)
        if self._calls_disabled(func, qual):
            self._emit_check("disabled-call", node)

    def _reordered_print(self, node: cst.Call) -> bool:
        """A `print` Dynamo records and makes after the graph instead of breaking: the module
        adds `print` to `torch._dynamo.config.reorderable_logging_functions`, and the call has
        positional arguments that are not a `torch.Size` or a module (those are refused:
        "attempted to reorder a debugging function that can't actually be reordered", checked
        on 2.13). See breakscan.fix.rewrites.reorder_print."""
        if not self._reorders_print or self.env is None:
            return False
        if any(a.keyword is not None or a.star for a in node.args):
            return False
        values = [a.value for a in node.args]
        for arg in node.args:
            if isinstance(arg.value, cst.FormattedString):
                values += [p.expression for p in arg.value.parts if isinstance(p, cst.FormattedStringExpression)]
        return not any(self.env.kind(v) in (T.SHAPE, T.MODULE) for v in values)

    def _size_arguments(self, node: cst.Call) -> None:
        assert self.env is not None
        for arg in node.args:
            if arg.keyword is not None or arg.star:
                continue
            # A size given as one tuple or list (`torch.zeros((n, d))`) is checked element by element.
            values = ([e.value for e in arg.value.elements if not isinstance(e, cst.StarredElement)]
                      if isinstance(arg.value, (cst.Tuple, cst.List)) else [arg.value])
            # Only a size computed in this graph breaks; an input of the graph is a size Dynamo
            # reads at entry (checked on 2.13 with backend "eager"; Inductor fails on both, GB0219).
            if any(self.env.is_tensor(v) and self._computes(v) for v in values):
                self._emit_check("tensor-size-argument", node)
                return

    def _is_shadowed(self, name: str) -> bool:
        head = name.split(".")[0]
        return self.env is not None and head in self.env.names and head not in self.info.imports

    def _is_logger(self, recv: cst.BaseExpression) -> bool:
        name = dotted_name(recv)
        if name is None:
            return False
        last = name.rsplit(".", 1)[-1]
        if last in LOGGER_NAMES:
            return name != "logging" or self.info.qualify("logging") == "logging"
        return self.info.module_vars.get(name, "").endswith(("getLogger", "get_logger"))

    def _calls_disabled(self, func: cst.BaseExpression, qual: str) -> bool:
        if self.index.is_disabled(qual):
            return True
        if (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
                and func.value.value == "self" and self.region is not None and self.region.cls):
            found = self.index.method(self.region.cls.qualname, func.attr.value)
            owner = found[1].qualname if found else self.region.cls.qualname  # else `self.sub = disable(Sub())`
            subs = self.index.class_attr_kinds(self.region.cls.qualname)[2].get(func.attr.value, ())
            return self.index.is_disabled(f"{owner}.{func.attr.value}") or any(
                self.index.is_disabled(f"{q}.forward") for q in subs)  # an instance of a disabled class
        return False

    # other structural checks -----------------------------------------------------------------
    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._note_target(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
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
        if isinstance(target, cst.Subscript):
            self._stores.add(id(target))
        elif (self.region is not None and self.region.cls is not None and isinstance(target, cst.Attribute)
              and isinstance(target.value, cst.Name) and target.value.value == "self"
              and target.attr.value in self.index.inherited(self.region.cls.qualname, "buffer_attrs")):
            self._emit_check("buffer-reassign", target)
        elif (self.region is not None and isinstance(target, cst.Attribute)
              and target.attr.value == "requires_grad"):
            self._emit_check("requires-grad-set", target)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if self.region is None:
            return
        expr = node.item
        if isinstance(expr, cst.Call):
            name = dotted_name(expr.func)
            if name and self.info.qualify(name) in {"open", "io.open"} | LOCK_FACTORIES:
                self._emit_check("unsupported-context-manager", node)
            return
        name = dotted_name(expr)
        if name is None:
            return
        if self.info.module_vars.get(name, "") in LOCK_FACTORIES:
            self._emit_check("unsupported-context-manager", node)
        elif isinstance(expr, cst.Name) and self._params and expr.value in self._params[-1] \
                and self.env is not None and self.env.lookup(expr.value) not in TENSORISH:
            self._emit_check("unsupported-context-manager", node)

    def visit_Name(self, node: cst.Name) -> None:
        if (self.region is not None and node.value in self.info.rebound_globals
                and self.env is not None and node.value not in self.env.names):
            self._emit_check("global-mutable-read", node)

    def _data_ptr_operands(self, operands: list[cst.BaseExpression]) -> None:
        for operand in operands:
            if (isinstance(operand, cst.Call) and isinstance(operand.func, cst.Attribute)
                    and operand.func.attr.value == "data_ptr" and self.env is not None
                    and self.env.kind(operand.func.value) in (*TENSORISH, T.UNKNOWN)):
                self._emit_check("data-ptr-use", operand)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if self.region is not None:
            self._data_ptr_operands([node.left, *(c.comparator for c in node.comparisons)])
            self._sequence_compare(node)
        if self.region is not None and self._scalar_params and self._scalar_params[-1]:
            operands = [node.left] + [c.comparator for c in node.comparisons]
            if any(isinstance(o, cst.Name) and o.value in self._scalar_params[-1] for o in operands):
                self._emit_check("scalar-argument", node)

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

    def _is_passed_in(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.Name):
            return bool(self._params) and expr.value in self._params[-1]
        return (isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name)
                and expr.value.value == "self")

    def _is_module_receiver(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.Name) and expr.value == "self":
            return True
        if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self":
            return True
        return self.env is not None and self.env.kind(expr) is T.MODULE

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if (self.region is None or self.env is None or id(node) in self._stores
                or not self.env.is_tensor(node.value)):
            return
        for element in node.slice:
            if isinstance(element.slice, cst.Index) and self.env.kind(element.slice.value) is T.BOOL_TENSOR:
                self._emit_check("mask-index", node)
                return

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if self.region is not None:
            self._data_ptr_operands([node.left, node.right])
        if self.region is not None and self.env is not None and self._scalar_params and self._scalar_params[-1]:
            for a, b in ((node.left, node.right), (node.right, node.left)):
                if isinstance(a, cst.Name) and a.value in self._scalar_params[-1] and self.env.is_tensor(b):
                    self._emit_check("scalar-argument", node)
                    break
        if (self.region is not None and self.env is not None and isinstance(node.operator, cst.Modulo)
                and isinstance(node.left, (cst.SimpleString, cst.ConcatenatedString))
                and (self.env.is_tensor(node.right) or (
                    isinstance(node.right, cst.Tuple)
                    and any(self.env.is_tensor(e.value) for e in node.right.elements)))):
            self._emit_check("tensor-percent-format", node)

    # internal errors -----------------------------------------------------------------------
    def on_error(self, method: str, node: cst.CSTNode, exc: Exception) -> None:
        """walk() calls this when a visit_/leave_ method raises: record it, the walk goes on.

        engine.py turns each record into a BRK900 finding naming the method and its rules.
        """
        self.errors.append(CheckError(method, node, self._root, exc, traceback.format_exc()))

    # emit --------------------------------------------------------------------------------
    def _emit_check(self, check: str, node: cst.CSTNode) -> None:
        for rule in self.rules.checks.get(check, ()):
            self._emit(rule, node)

    def _emit(self, rule: Rule, node: cst.CSTNode) -> None:
        assert self.region is not None
        assert self._root is not None
        self.hits.append(Hit(rule, node, self._root[0], self._root[1]))
        if rule.kind.value == "graph-break":
            self._breaks += 1


IMPLEMENTED_CHECKS = {
    "tensor-branch", "scalar-conversion", "mask-index", "tensor-str", "tensor-percent-format",
    "disabled-call", "tensor-range", "next-on-argument", "requires-grad-set", "hook-in-forward",
    "unsupported-context-manager", "training-branch", "scalar-argument", "global-mutable-read",
    "module-counter", "string-argument", "where-one-arg", "data-ptr-use",
    "tensor-size-argument", "buffer-reassign", "tensor-sequence-compare",
}


@dataclass(frozen=True)
class CheckError:
    """A visit_/leave_ method of RegionVisitor that raised on a node (breakscan's own bug)."""

    method: str
    node: cst.CSTNode
    root: object  # what check_function was walking (its region function)
    exc: Exception
    traceback: str


# Which structural checks each visit_ method runs (the rules an exception there could lose);
# methods not listed here only track scopes and types, which every rule of the function uses.
_BRANCH = ("tensor-branch", "training-branch", "string-argument")
METHOD_CHECKS: dict[str, tuple[str, ...]] = {
    "visit_If": _BRANCH, "visit_While": _BRANCH, "visit_IfExp": _BRANCH,
    "visit_UnaryOperation": _BRANCH, "visit_BooleanOperation": _BRANCH,
    "visit_Call": ("scalar-conversion", "tensor-str", "tensor-range", "next-on-argument",
                   "requires-grad-set", "disabled-call", "hook-in-forward", "tensor-size-argument"),
    "visit_AssignTarget": ("requires-grad-set",), "visit_AugAssign": ("module-counter", "requires-grad-set"),
    "visit_Assign": ("module-counter",), "visit_WithItem": ("unsupported-context-manager",),
    "visit_Name": ("global-mutable-read",),
    "visit_Comparison": ("scalar-argument", "tensor-sequence-compare"),
    "visit_Assert": ("tensor-branch",),
    "visit_Subscript": ("mask-index",), "visit_BinaryOperation": ("scalar-argument", "tensor-percent-format"),
}


def rules_at_risk(method: str, rules: RuleIndex) -> list[str]:
    """Ids of the rules a failure in `method` may have missed (empty: scope/type tracking)."""
    ids = {rule.id for check in METHOD_CHECKS.get(method, ()) for rule in rules.checks.get(check, ())}
    if method == "visit_Call":  # also the `calls`, `tensor_methods` and `logger_methods` rules
        ids |= {rule.id for _, rule in rules.calls}
        ids |= {rule.id for group in (*rules.tensor_methods.values(), *rules.logger_methods.values())
                for rule in group}
    return sorted(ids)
