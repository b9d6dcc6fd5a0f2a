"""The walker: one libcst pass over a module's compile-region functions, running every check.

RegionVisitor combines the check families (one mixin per module of this package) and keeps the
walk's scopes: a type environment per function, the region being walked, its parameters, and which
locals hold a tensor computed in the current graph (BRK108).
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass

import libcst as cst

from breakscan.static.checks.arrays import ArrayChecks
from breakscan.static.checks.binding import all_params, param_kind
from breakscan.static.checks.call_sites import CallSiteInference, ProjectCallers
from breakscan.static.checks.calls import CallChecks
from breakscan.static.checks.control_flow import ControlFlowChecks
from breakscan.static.checks.mutation import MutationChecks
from breakscan.static.checks.operators import OperatorChecks
from breakscan.static.checks.rule_index import Hit, RuleIndex
from breakscan.static.checks.sparse_flow import SparseFlowChecks
from breakscan.static.elide import says_lambda
from breakscan.static.index import ClassInfo, FunctionInfo, ModuleInfo, ProjectIndex
from breakscan.static.regions import HIGHER_ORDER_BRANCHES, Region
from breakscan.static.syntax import REORDERABLE_PRINT, dotted_name
from breakscan.static.tensors import TENSORISH, TORCH_FACTORIES, T, TypeEnv
from breakscan.static.walk import children, iter_nodes, walk

# Tensor methods whose result requires grad only if the receiver does, given no tensor argument
# (a tensor's values): dtype, device and layout changes, fills, views (`_is_fresh`).
_GRAD_NEUTRAL_METHODS = frozenset({
    "to", "type", "float", "double", "half", "bfloat16", "long", "int", "bool", "cpu", "cuda",
    "fill_", "zero_", "expand", "view", "reshape", "unsqueeze", "squeeze", "contiguous", "clone",
    "flatten", "repeat", "permute", "transpose",
})


@dataclass(frozen=True)
class CheckError:
    """A visit_/leave_ method of RegionVisitor that raised on a node (breakscan's own bug)."""

    method: str
    node: cst.CSTNode
    root: object  # what check_function was walking (its region function)
    exc: Exception
    traceback: str


def _stored_lambdas(value: cst.BaseExpression) -> list[cst.Lambda]:
    """The lambdas a value stored on `self` may be: the value itself, an operand of `or`/`and`
    (`act or (lambda t: ...)`), a branch of a conditional expression."""
    if isinstance(value, cst.Lambda):
        return [value]
    if isinstance(value, cst.BooleanOperation):
        return _stored_lambdas(value.left) + _stored_lambdas(value.right)
    if isinstance(value, cst.IfExp):
        return _stored_lambdas(value.body) + _stored_lambdas(value.orelse)
    return []


class RegionVisitor(ControlFlowChecks, CallChecks, SparseFlowChecks, MutationChecks, OperatorChecks, ArrayChecks,
                    CallSiteInference):
    """Visits one module; checks only code inside region functions (see regions.py)."""

    def __init__(self, info: ModuleInfo, index: ProjectIndex, regions: dict[int, Region],
                 rules: RuleIndex,
                 functions: dict[tuple[str, int], cst.FunctionDef] | None = None,
                 source: str | None = None, project_callers: ProjectCallers | None = None) -> None:
        """`regions` maps `id()` of this module's libcst FunctionDefs to their Region;
        `functions` (syntax.indexed_functions) lets calls to this module's functions and methods
        take their return kinds; `source` is the module's text (CallSites: without it no
        parameter is inferred from call sites); `project_callers` the traced call sites of the
        project (without it parameters are inferred from this module's calls only)."""
        self._init_inference(functions or {}, source, project_callers)
        self._computed: list[dict[str, int]] = []  # per scope: tensor local -> self._breaks at its assignment
        self._fresh: list[set[str]] = []  # per scope: locals holding a tensor made here without grad
        self._disabled_locals: list[set[str]] = []  # per scope: locals bound to `torch.compiler.disable(fn)`
        self._guessed: list[set[str]] = []  # per scope: tensors only by the root-parameter convention
        self._unchecked: list[cst.FunctionDef | None] = []  # per scope: parameters not yet checked for use
        self._guards: dict[int, cst.BaseExpression] = {}  # node id -> the test it runs behind
        self._handlers = 0  # depth of `except` handlers around the node being walked
        self._breaks = 0  # graph-break hits emitted so far
        self._pending_inits: list[tuple[cst.Call, int]] = []
        self._breaks_at_def = 0
        self._rnn_sites: set[tuple[int, str, int]] = set()  # (node id, rule id, region id): BRK231 emitted
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
        self._root_extent: tuple[int, int, int] | None = None
        self._inlining: set[int] = set()  # lambdas being walked where they are called
        self._stores: set[int] = set()  # subscripts that are assignment targets
        self._params: list[set[str]] = []  # parameter names of enclosing region functions
        self._scalar_params: list[set[str]] = []  # int/float parameters of compiled roots
        self._str_params: list[set[str]] = []  # str parameters of compiled roots
        # Nested defs and lambdas passed to `torch.cond` / `while_loop` in the region function being
        # walked (id -> the operator), and the operators around the current node, innermost last.
        self._may_branch = source is None or "cond(" in source or "while_loop(" in source
        # a local may hold a storage address (BRK401's binding lookup) only where the text says `data_ptr`
        self._mentions_data_ptr = source is None or "data_ptr" in source
        self._mentions_storage = source is None or "untyped_storage" in source  # BRK274's, likewise
        self._branch_nodes: dict[int, str] = {}
        self._under: list[str] = []

    def visit_Name(self, node: cst.Name) -> None:
        """A name read or stored: each family's test, called here by name (this runs for every
        name of every region function: no `super()` chain)."""
        MutationChecks.visit_Name(self, node)
        self.sparse_read(node)

    def check_function(self, region: Region, node: cst.FunctionDef) -> None:
        """Walk one region function (nested functions included)."""
        self._root = (region, node)
        self._branch_nodes = self._higher_order_branches(node) if self._may_branch else {}
        walk(node, self)
        self._root = None

    def _higher_order_branches(self, node: cst.FunctionDef) -> dict[int, str]:
        """The nested defs (passed by name) and lambdas that `node` passes as a branch or body to
        a higher-order operator (regions.HIGHER_ORDER_BRANCHES): Dynamo must trace them whole."""
        names: dict[str, str] = {}
        out: dict[int, str] = {}
        for call in iter_nodes(node, cst.Call):
            name = dotted_name(call.func)
            op = self.info.qualify(name) if name else ""
            for position in HIGHER_ORDER_BRANCHES.get(op, ()):
                if position < len(call.args) and not call.args[position].keyword:
                    value = call.args[position].value
                    if isinstance(value, cst.Lambda):
                        out[id(value)] = op
                    elif isinstance(value, cst.Name):
                        names[value.value] = op
        if names:
            for nested in iter_nodes(node.body, cst.FunctionDef):
                if nested.name.value in names:
                    out[id(nested)] = names[nested.name.value]
        return out

    # scopes ------------------------------------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self._stack.append((self.env, self.region))
        self._under.append(self._branch_nodes.get(id(node), ""))
        self._computed.append({})
        self._fresh.append(set())
        self._disabled_locals.append(set())
        self._guessed.append(set())
        self._unchecked.append(None)
        region = self.regions.get(id(node))
        if region is not None:
            self._pending_inits, self._breaks_at_def = [], self._breaks
            self.region = region
            self.env = self._root_env(region)
            self.env.function = node
            self._bind_params(node, region)
        elif self.region is not None and self.env is not None:  # nested def inside a region
            self.env = TypeEnv(self.info, parent=self.env)
            self.env.function = node
            self._bind_params(node, None)
        else:
            self.env, self.region = None, None
            return True
        self._note_params(node, region)
        self._note_guessed(node, region)
        return True

    def _note_guessed(self, node: cst.FunctionDef, region: Region | None) -> None:
        """The parameters a compiled root or `forward` takes as tensors by convention alone
        (unannotated, binding.param_kind), unless the body uses one as a tensor (`_check_guessed`):
        the first values of `_only_guessed`."""
        if region is None or self.env is None or not (len(region.chain) <= 1 or node.name.value == "forward"):
            return
        proven = self.root_call_kinds(region.function.qualname, node)  # what the calls made of it pass
        for param in all_params(node):
            name = param.name.value
            if (param.annotation is None and param_kind(param, True) in TENSORISH and name not in proven
                    and param_kind(param, False) not in TENSORISH and self.env.lookup(name) in TENSORISH):
                self._guessed[-1].add(name)
        if self._guessed[-1]:
            self._unchecked[-1] = node

    def _check_guessed(self, scope: int) -> None:
        """Drop from scope `scope`'s guessed parameters those its function reads an attribute or
        method of (`lengths.max()`, `x.shape`): a value used so is a tensor, not an int. Done on
        first need: most functions never ask."""
        node = self._unchecked[scope]
        if node is None:
            return
        self._unchecked[scope] = None
        guessed = self._guessed[scope]
        for attr in iter_nodes(node.body, cst.Attribute):
            if isinstance(attr.value, cst.Name) and attr.value.value in guessed:
                guessed.discard(attr.value.value)

    def _note_params(self, node: cst.FunctionDef, region: Region | None) -> None:
        params = all_params(node)
        names = {p.name.value for p in params} - {"self", "cls"}
        scalars: set[str] = set()
        strings: set[str] = set()
        if region is not None and len(region.chain) <= 1 and node.name.value != "forward":
            for p in params:
                ann = p.annotation.annotation if p.annotation else None
                ann_name = dotted_name(ann) if ann is not None else None
                passed_tensor = self.env is not None and self.env.names.get(p.name.value) in TENSORISH
                if (ann_name in ("int", "float") or isinstance(p.default, (cst.Integer, cst.Float))) \
                        and not passed_tensor:  # every call passes a tensor (_param_kinds)
                    scalars.add(p.name.value)
                if ann_name == "str" or isinstance(p.default, cst.SimpleString):
                    strings.add(p.name.value)
            if "." not in region.function.qualname:  # unannotated: a number its calls vary
                scalars -= self.root_fixed_params(region.function.qualname, node)  # one value at every call
                scalars |= self.root_varying_params(region.function.qualname, node)
        elif region is not None and len(region.chain) <= 1 and region.cls is not None:  # `model(x, t)` in a loop
            scalars |= self.forward_varying_params(region.cls.qualname, node)
        self._params.append(names)
        self._scalar_params.append(scalars)
        self._str_params.append(strings)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        if id(original_node) in self.regions:
            self._settle_module_inits()
        self.env, self.region = self._stack.pop()
        self._under.pop()
        self._computed.pop()
        self._fresh.pop()
        self._disabled_locals.pop()
        self._guessed.pop()
        self._unchecked.pop()
        if self._params:
            self._params.pop()
            self._scalar_params.pop()
            self._str_params.pop()

    # lambdas stored on `self` ------------------------------------------------------------------
    def leave_Call(self, original_node: cst.Call) -> None:
        """`self.act(h)` where a method of the region's class stores `self.act = lambda t: ...`
        (also as a default: `act or (lambda t: ...)`, a branch of `... if ... else ...`): Dynamo
        inlines the lambda at the call (measured on 2.13: `t.tolist()` in it breaks), so its body
        is checked there, its parameters taking the kinds of the call's arguments, and findings
        lie on the lambda's lines. Only a class of this module, and not when the call unpacks."""
        func = original_node.func
        if self.region is None or self.env is None or self.region.cls is None \
                or not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
                        and func.value.value == "self") or any(a.star for a in original_node.args):
            return
        for lam, holder, holder_info in self._lambdas_of(func.attr.value):
            if id(lam) not in self._inlining:
                self._inline_lambda(original_node, lam, holder, holder_info)

    def _lambdas_of(self, attr: str) -> list[tuple[cst.Lambda, cst.FunctionDef, FunctionInfo]]:
        """(lambda, the method storing it, that method's index entry) for `self.<attr> = ...` in
        the methods of the walked region's class (CheckBase._class_assignments)."""
        cls = self.info.classes.get(self.region.function.qualname.rpartition(".")[0]) if self.region else None
        if cls is None or not self._writes_lambdas(cls):
            return []
        found = []
        for value, method, (qualname, occurrence) in self._class_assignments(attr)[0]:
            info = cls.methods.get(qualname.rpartition(".")[2])
            if info is not None and info.occurrence == occurrence and info.end_line:
                found += [(lam, method, info) for lam in _stored_lambdas(value)]
        return found

    def _writes_lambdas(self, cls: ClassInfo) -> bool:
        """Whether the source lines of `cls`'s methods say `lambda` (once per class): most classes
        do not, and _class_assignments walks every method of the class."""
        known = self.__dict__.setdefault("_lambda_classes", {})
        if cls.qualname not in known:
            if self.source is None:
                known[cls.qualname] = True
            else:
                if self._source_lines is None:
                    self._source_lines = self.source.splitlines()
                known[cls.qualname] = any(says_lambda(self._source_lines, fn) for fn in cls.methods.values())
        return known[cls.qualname]

    def _inline_lambda(self, call: cst.Call, lam: cst.Lambda, holder: cst.FunctionDef, info: FunctionInfo) -> None:
        """Walk `lam` as called by `call`, in a scope of the class whose parameters take the kinds
        of the call's arguments (unknown when not passed), reporting on the lines of `holder`."""
        assert self.env is not None and self.region is not None and self._root is not None
        kinds = {p.name.value: T.UNKNOWN for p in all_params(lam)}
        positional = [p.name.value for p in (*lam.params.posonly_params, *lam.params.params)]
        for i, arg in enumerate(call.args):
            name = arg.keyword.value if arg.keyword is not None else positional[i] if i < len(positional) else None
            if name in kinds:
                kinds[name] = self.env.kind(arg.value)
        env = self._class_env(self.region.cls)
        env.names.update(kinds)
        saved = (self.env, self._root, self._root_extent)
        self._inlining.add(id(lam))
        self._computed.append({})
        self._fresh.append(set())
        self._guessed.append(set())
        try:
            self.env, self._root = env, (self._root[0], holder)
            self._root_extent = (info.line, info.end_line, info.indent)
            walk(lam.body, self)
        finally:
            self.env, self._root, self._root_extent = saved
            self._inlining.discard(id(lam))
            self._computed.pop()
            self._fresh.pop()
            self._guessed.pop()

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        self._under.append(self._branch_nodes.get(id(node), ""))
        return self.region is not None

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self._under.pop()

    def branch_of(self) -> str:
        """The higher-order operator whose nested branch (a def or lambda of the region function)
        the current node lies in, or ""."""
        return next((op for op in reversed(self._under) if op), "")

    # code behind a test in one expression -----------------------------------------------------
    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> bool:
        walk_right = super().visit_BooleanOperation(node)  # False: the right side never runs under Dynamo
        self._guard(node.right, node.left)
        self._enter_conditional(node)
        return walk_right

    def leave_BooleanOperation(self, original_node: cst.BooleanOperation) -> None:
        self._leave_conditional()

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        self._handlers += 1  # runs only when the `try` body raises (Hit.in_handler)

    def leave_ExceptHandler(self, original_node: cst.ExceptHandler) -> None:
        self._handlers -= 1

    def visit_ExceptStarHandler(self, node: cst.ExceptStarHandler) -> None:
        self._handlers += 1

    def leave_ExceptStarHandler(self, original_node: cst.ExceptStarHandler) -> None:
        self._handlers -= 1

    def visit_IfExp(self, node: cst.IfExp) -> None:
        super().visit_IfExp(node)
        self._guard(node.body, node.test)
        self._guard(node.orelse, node.test)
        self._enter_conditional(node)

    def leave_IfExp(self, original_node: cst.IfExp) -> None:
        self._leave_conditional()

    def _guard(self, operand: cst.CSTNode, test: cst.BaseExpression) -> None:
        """Note that the nodes of `operand` run only as `test` decides (short-circuit `and`/`or`,
        a conditional expression). Their findings carry the test (Hit.guard): when they share its
        line, Dynamo tracing that line does not show that they ran (merge does not refute them).
        An enclosing test noted first is kept."""
        if self.region is None:
            return
        stack = [operand]
        while stack:
            current = stack.pop()
            self._guards.setdefault(id(current), test)
            stack.extend(children(current))

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
        self._loop_target(node.target, node.iter)

    def _loop_target(self, target: cst.BaseExpression, it: cst.BaseExpression) -> None:
        """A loop or comprehension target: rows of a tensor only guessed are guessed too."""
        if self._guessed and self.env is not None:
            sources = self.env.zipped_iterables(it) if isinstance(target, (cst.Tuple, cst.List)) else None
            pairs = [(target, it)] if sources is None else [(el.value, src) for el, src in zip(target.elements, sources)]
            for name, value in pairs:
                if isinstance(name, cst.Name) and value is not None and self._only_guessed(value):
                    self._guessed[-1].add(name.value)

    def _track(self, target: cst.BaseExpression, value: cst.BaseExpression | None,
               augmented: bool = False) -> None:
        """Note which local names now hold a tensor computed in the current graph (`_computes`)."""
        if not self._computed or self.env is None:
            return
        self._note_sparse_binding(target, None if augmented else value)
        if isinstance(target, cst.Name):
            name = target.value
            if self.env.lookup(name) in TENSORISH and (augmented or (value is not None and self._computes(value))):
                self._computed[-1][name] = self._breaks
            else:
                self._computed[-1].pop(name, None)
            if value is not None and not augmented and self._is_fresh(value):
                self._fresh[-1].add(name)
            else:
                self._fresh[-1].discard(name)
            if isinstance(value, cst.Call) and not augmented and self._makes_disabled(value):
                self._disabled_locals[-1].add(name)  # `g = disable(fn)`: calling `g` breaks again
            else:
                self._disabled_locals[-1].discard(name)
            if value is not None and not augmented and self._only_guessed(value):
                self._guessed[-1].add(name)
            else:
                self._guessed[-1].discard(name)
        elif isinstance(target, (cst.Tuple, cst.List)):
            pairs = (isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(target.elements)
                     and not any(isinstance(e, cst.StarredElement) for e in (*value.elements, *target.elements)))
            for i, element in enumerate(target.elements):
                inner = value.elements[i].value if pairs else value  # type: ignore[union-attr]
                self._track(element.value, inner, augmented)

    def _only_guessed(self, expr: cst.BaseExpression) -> bool:
        """Whether `expr` is a tensor only because a root's unannotated parameter was taken for one
        (`forward(self, i, j)`: `j - i`, `height * width` after `height, width = dims`) and the
        function never uses that parameter as a tensor (`_check_guessed`): every tensor operand
        derives from such a parameter. A size argument (BRK108) computed from it is not
        flagged: the code uses the value as an int, which the convention only guessed was a
        tensor (x_transformers' `arange(j - i, j)` on ints). (`range(n)` of the parameter itself
        still is, BRK107: the rule's own example.)"""
        assert self.env is not None
        if isinstance(expr, cst.Name):
            for i, scope in enumerate(self._guessed):
                if expr.value in scope:
                    self._check_guessed(i)
            return any(expr.value in scope for scope in self._guessed)
        if isinstance(expr, cst.Subscript):
            return self._only_guessed(expr.value)
        if isinstance(expr, cst.UnaryOperation):
            return self._only_guessed(expr.expression)
        if isinstance(expr, cst.BinaryOperation):
            sides = [side for side in (expr.left, expr.right) if self.env.kind(side) in TENSORISH]
            return bool(sides) and all(self._only_guessed(side) for side in sides)
        return False

    def _is_fresh(self, value: cst.BaseExpression, depth: int = 0) -> bool:
        """A tensor that does not require grad, made here: a torch factory call (`torch.zeros`,
        `torch.randn_like`...) without `requires_grad=`, or `.detach()` of anything, and such a
        tensor passed through methods that take no tensor's values (`torch.tensor(1).fill_(v).type(
        t).to(device)`: _GRAD_NEUTRAL_METHODS, no tensor argument)."""
        if not isinstance(value, cst.Call):
            return False
        func = value.func
        if isinstance(func, cst.Attribute) and func.attr.value == "detach" and not value.args:
            return True
        if isinstance(func, cst.Attribute) and func.attr.value in _GRAD_NEUTRAL_METHODS and depth < 8 \
                and self.env is not None and not any(self.env.kind(a.value) in TENSORISH for a in value.args):
            return self._is_fresh(func.value, depth + 1)
        name = dotted_name(func)
        qual = self.info.qualify(name) if name else ""
        return ((qual in TORCH_FACTORIES or (qual.startswith("torch.") and qual.endswith("_like")))
                and not any(a.keyword is not None and a.keyword.value == "requires_grad" for a in value.args))

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

    # internal errors -----------------------------------------------------------------------
    def on_error(self, method: str, node: cst.CSTNode, exc: Exception) -> None:
        """walk() calls this when a visit_/leave_ method raises: record it, the walk goes on.

        engine.py turns each record into a BRK900 finding naming the method and its rules.
        """
        self.errors.append(CheckError(method, node, self._root, exc, traceback.format_exc()))
