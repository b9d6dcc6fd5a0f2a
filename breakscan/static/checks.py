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
from breakscan.static.syntax import compiling_guard, dotted_name
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
            for target in original_node.targets:
                self.env.bind(target.target, kind)

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
        return False

    def result(self) -> T:
        """The joined return kind (tensors.join_kinds), UNKNOWN for a generator."""
        return T.UNKNOWN if self.generator else join_kinds(self.kinds)


class RegionVisitor(Binder):
    """Visits one module; checks only code inside region functions (see regions.py)."""

    def __init__(self, info: ModuleInfo, index: ProjectIndex, regions: dict[int, Region],
                 rules: RuleIndex,
                 functions: dict[tuple[str, int], cst.FunctionDef] | None = None) -> None:
        """`regions` maps `id()` of this module's libcst FunctionDefs to their Region;
        `functions` (syntax.indexed_functions) lets calls to this module's functions and methods
        take their return kinds."""
        self.functions = functions or {}
        self._returns: dict[str, T | None] = {}  # qualname -> kind; None while being inferred
        self.info = info
        self.index = index
        self.regions = regions
        self.rules = rules
        self.hits: list[Hit] = []
        self.errors: list[CheckError] = []  # visit_/leave_ methods that raised (see on_error)
        self.env: TypeEnv | None = None
        self.region: Region | None = None
        self._stack: list[tuple[TypeEnv | None, Region | None]] = []
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
        if self._params:
            self._params.pop()
            self._scalar_params.pop()
            self._str_params.pop()

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return self.region is not None

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
                       returns=self._return_kind)

    def _callee(self, call: cst.Call) -> tuple[str, ClassInfo | None] | None:
        """(qualname, class) of a function or `self` method defined in this module, if `call` calls one."""
        func = call.func
        if isinstance(func, cst.Name):
            fn = self.info.functions.get(func.value)
            return (fn.qualname, None) if fn is not None else None
        if (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self"
                and self.region is not None and self.region.cls is not None):
            found = self.index.method(self.region.cls.qualname, func.attr.value)
            if found is not None and found[0].name == self.info.name:
                return found[2].qualname, found[1]
        return None

    def _return_kind(self, call: cst.Call) -> T:
        """The joined kind of what a called function of this module returns (UNKNOWN if recursive)."""
        callee = self._callee(call)
        if callee is None:
            return T.UNKNOWN
        qualname, cls = callee
        if qualname in self._returns:
            return self._returns[qualname] or T.UNKNOWN
        node = self.functions.get((qualname, 0))
        if node is None or (qualname, 1) in self.functions:  # redefined: which one runs is unknown
            return T.UNKNOWN
        self._returns[qualname] = None
        env = self._class_env(cls)
        for i, param in enumerate(_all_params(node)):
            if not (i == 0 and cls is not None and param.name.value in ("self", "cls")):
                env.names[param.name.value] = _param_kind(param, False)
        collector = ReturnCollector(env)
        walk(node.body, collector)
        kind = collector.result()
        self._returns[qualname] = kind
        return kind

    def _bind_params(self, node: cst.FunctionDef, region: Region | None) -> None:
        assert self.env is not None
        is_root = region is not None and (len(region.chain) <= 1 or node.name.value == "forward")
        params = _all_params(node)
        for i, param in enumerate(params):
            name = param.name.value
            if i == 0 and name in ("self", "cls") and region is not None and region.cls is not None:
                continue
            self.env.names[name] = _param_kind(param, is_root)

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
        return False  # Dynamo 2.13 traces asserts on tensors without a break

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

    def _size_arguments(self, node: cst.Call) -> None:
        assert self.env is not None
        for arg in node.args:
            if arg.keyword is not None or arg.star:
                continue
            # A size given as one tuple or list (`torch.zeros((n, d))`) is checked element by element.
            values = ([e.value for e in arg.value.elements if not isinstance(e, cst.StarredElement)]
                      if isinstance(arg.value, (cst.Tuple, cst.List)) else [arg.value])
            if any(self.env.is_tensor(v) for v in values):
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
            if found:
                _, cls, _ = found
                return self.index.is_disabled(f"{cls.qualname}.{func.attr.value}")
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
        if self.region is not None and self._scalar_params and self._scalar_params[-1]:
            operands = [node.left] + [c.comparator for c in node.comparisons]
            if any(isinstance(o, cst.Name) and o.value in self._scalar_params[-1] for o in operands):
                self._emit_check("scalar-argument", node)

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


IMPLEMENTED_CHECKS = {
    "tensor-branch", "scalar-conversion", "mask-index", "tensor-str", "tensor-percent-format",
    "disabled-call", "tensor-range", "next-on-argument", "requires-grad-set", "hook-in-forward",
    "unsupported-context-manager", "training-branch", "scalar-argument", "global-mutable-read",
    "module-counter", "string-argument", "where-one-arg", "data-ptr-use",
    "tensor-size-argument", "buffer-reassign",
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
                   "requires-grad-set", "disabled-call", "hook-in-forward"),
    "visit_AssignTarget": ("requires-grad-set",), "visit_AugAssign": ("module-counter", "requires-grad-set"),
    "visit_Assign": ("module-counter",), "visit_WithItem": ("unsupported-context-manager",),
    "visit_Name": ("global-mutable-read",), "visit_Comparison": ("scalar-argument",),
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
