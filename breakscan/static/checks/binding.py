"""Kinds of names: of parameters (`param_kind`), of assignment targets (`Binder`), and of what a
function returns (`ReturnCollector`). The kinds themselves are inferred by tensors.TypeEnv."""

from __future__ import annotations

import re
from dataclasses import dataclass

import libcst as cst

from breakscan.static.syntax import dotted_name
from breakscan.static.tensors import TENSORISH, T, TypeEnv, annotation_kind, join_kinds

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


def param_kind(param: cst.Param, is_forward_or_root: bool, annotation: cst.BaseExpression | None = None) -> T:
    """A parameter's kind from its annotation and default alone (UNKNOWN when they do not say).

    `is_forward_or_root`: the parameter of a compiled root or a `forward`, which Dynamo receives
    from the caller: no annotation and no default there means a tensor (a scalar by name).
    `annotation`: the annotation with a type alias resolved (`OptTensor` -> `Optional[Tensor]`,
    ProjectIndex.lookup_alias); default: the annotation as written."""
    if annotation is None and param.annotation is not None:
        annotation = param.annotation.annotation
    kind = annotation_kind(annotation)
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


def all_params(node: cst.FunctionDef | cst.Lambda) -> list[cst.Param]:
    """Positional-only, ordinary and keyword-only parameters, in order (no `*args`/`**kwargs`)."""
    return [*node.params.posonly_params, *node.params.params, *node.params.kwonly_params]


@dataclass
class _Branch:
    """An `if` being walked: the scope's names before it, and after its body once the walk left it."""

    node: cst.If
    env: TypeEnv
    before: dict[str, T]
    body: dict[str, T] | None = None
    narrowed: tuple[str, ...] = ()  # names the test proves tensors in the body only (`_narrowed`)


def _narrowed(info, test: cst.BaseExpression) -> list[tuple[str, T]]:
    """Names an `if` test proves tensors in its body, with their kind: `isinstance(x, Tensor)`
    (`torch.Tensor`, `Tensor` imported from torch) a tensor, `x.dtype == torch.bool` (or `is`) a
    boolean tensor, alone or joined by `and`. Dynamo decides both while tracing, so the body runs
    only with such a value there (`x: Union[Tensor, Tuple, SparseTensor]`; torch_geometric's
    `select(src, index_or_mask, dim)` indexes by a mask under the dtype test). A tuple of classes
    proves nothing (`isinstance(x, (Tensor, np.ndarray))`)."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return _narrowed(info, test.left) + _narrowed(info, test.right)
    if (isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value == "isinstance"
            and len(test.args) == 2 and isinstance(test.args[0].value, cst.Name)):
        cls = dotted_name(test.args[1].value) or ""
        if cls == "torch.Tensor" or info.qualify(cls) == "torch.Tensor":
            return [(test.args[0].value.value, T.TENSOR)]
    if (isinstance(test, cst.Comparison) and len(test.comparisons) == 1
            and isinstance(test.comparisons[0].operator, (cst.Equal, cst.Is))
            and isinstance(test.left, cst.Attribute) and test.left.attr.value == "dtype"
            and isinstance(test.left.value, cst.Name)
            and info.qualify(dotted_name(test.comparisons[0].comparator) or "") == "torch.bool"):
        return [(test.left.value.value, T.BOOL_TENSOR)]
    return []


def _ends_flow(suite: cst.BaseSuite | cst.Else | cst.If) -> bool:
    """Whether a branch's last statement leaves it (`return`, `raise`, `continue`, `break`):
    its bindings do not reach the code after the `if`."""
    if isinstance(suite, cst.If):
        return False  # an elif: its own paths are joined already
    if isinstance(suite, cst.Else):
        suite = suite.body
    body = suite.body
    if not body:
        return False
    last = body[-1]
    if isinstance(last, cst.SimpleStatementLine):
        last = last.body[-1] if last.body else last
    return isinstance(last, (cst.Return, cst.Raise, cst.Continue, cst.Break))


# Types no tensor is an instance of (a 0-d tensor is not a `float`).
NON_TENSOR_TYPES = {"int", "float", "bool", "complex", "str", "bytes", "list", "tuple", "dict", "set",
                    "Number", "numbers.Number"}


def tensor_test(test: cst.BaseExpression) -> tuple[str, bool] | None:
    """`(name, True)` when `test` is true only for a tensor `name` (`isinstance(name, torch.Tensor)`,
    also with a tuple of types holding `Tensor`, or `torch.is_tensor(name)`); `(name, False)` for
    its negation (`not isinstance(...)`) and `isinstance(name, (int, float))` (true only for a
    value that is not a tensor); else None. Every tensor is an instance of `Tensor`, so where such
    a test is False the name is not a tensor (kornia's `temperature: Tensor | float`)."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = tensor_test(test.expression)
        return None if inner is None else (inner[0], not inner[1])
    if not isinstance(test, cst.Call) or any(a.keyword is not None or a.star for a in test.args):
        return None
    func = dotted_name(test.func) or ""
    args = [a.value for a in test.args]
    if func.rsplit(".", 1)[-1] == "is_tensor" and len(args) == 1 and isinstance(args[0], cst.Name):
        return args[0].value, True
    if func != "isinstance" or len(args) != 2 or not isinstance(args[0], cst.Name):
        return None
    types = [e.value for e in args[1].elements] if isinstance(args[1], cst.Tuple) else [args[1]]
    names = [dotted_name(t) or "" for t in types]
    if any(name.rsplit(".", 1)[-1] == "Tensor" for name in names):
        return args[0].value, True
    if names and all(name in NON_TENSOR_TYPES for name in names):
        return args[0].value, False  # `isinstance(sigma, (int, float))`: no tensor is one
    return None


class Binder:
    """Binds assignment targets to inferred kinds as a walk leaves each statement (`self.env`).

    The two paths of an `if` are walked from the same state (the `else`/`elif` does not see the
    body's bindings) and meet when the walk leaves the `if` (TypeEnv.join_path): a name that is a
    tensor on one path and a Python value on the other is a tensor after it.
    """

    env: TypeEnv | None

    def visit_If(self, node: cst.If) -> bool | None:
        self._switch_branch(node)
        self._open_branch(node)
        return True

    def visit_Else(self, node: cst.Else) -> None:
        self._switch_branch(node)

    def leave_If(self, original_node: cst.If) -> None:
        branches = self.__dict__.get("_branches")
        if not branches or branches[-1].node is not original_node:
            return  # not opened (a pruned `if`, or no scope)
        branch = branches.pop()
        node, env = branch.node, branch.env
        if branch.body is None and branch.narrowed:  # no else: the walk is at the body's end
            names = env.bound()
            self._unnarrow(branch, names)
            env.restore(names)
        body_ends, other_ends = _ends_flow(node.body), node.orelse is not None and _ends_flow(node.orelse)
        other = branch.before if branch.body is None else branch.body  # the path walked first
        first_ends = body_ends if branch.body is not None else False
        last_ends = other_ends if branch.body is not None else body_ends
        if first_ends == last_ends:
            env.join_path(other)
        elif last_ends:  # only the path walked first goes on past the `if`
            env.restore(other)
        if node.orelse is None and body_ends:  # `if isinstance(x, Tensor): return ...`: past it, x is not one
            self._not_a_tensor(node.test, truth=False)

    def _open_branch(self, node: cst.If) -> None:
        """Note the state before `node` (call from visit_If when both paths are walked), and bind
        the names its test proves tensors (`isinstance(x, Tensor)`) for the body's walk."""
        if self.env is not None:
            env = self.env
            proven = [(n, k) for n, k in _narrowed(env.info, node.test)
                      if env.lookup(n) is not k and not (k is T.TENSOR and env.lookup(n) in TENSORISH)]
            narrowed = tuple(n for n, _ in proven)
            self.__dict__.setdefault("_branches", []).append(_Branch(node, env, env.bound(), narrowed=narrowed))
            for name, kind in proven:
                env.names[name] = kind
            env.restore(env.names)  # clears the memo
            self._not_a_tensor(node.test, truth=True)  # the body of `if not isinstance(x, Tensor):`

    @staticmethod
    def _unnarrow(branch: _Branch, names: dict[str, T]) -> None:
        """The body's end state `names` without the test's narrowing: past the `if`, a narrowed
        name is what it was before (precision first, also when the body rebound it)."""
        for name in branch.narrowed:
            if name in branch.before:
                names[name] = branch.before[name]
            else:
                names.pop(name, None)

    def _non_tensors(self, test: cst.BaseExpression, truth: bool) -> list[str]:
        """The names taken for tensors (a tuple of tensors stays one) that `test` shows are not
        tensors where it has the value `truth` (tensor_test: a float, a list, a NumPy array...).
        Each operand of an `and` that is true (of an `or` that is false) counts."""
        if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And if truth else cst.Or):
            return self._non_tensors(test.left, truth) + self._non_tensors(test.right, truth)
        narrowed = tensor_test(test)
        if self.env is None or narrowed is None or narrowed[1] is truth:
            return []
        return [narrowed[0]] if self.env.kind(cst.Name(narrowed[0])) in TENSORISH else []

    def _not_a_tensor(self, test: cst.BaseExpression, truth: bool) -> None:
        """On a path where `test` has the value `truth`, bind the names it shows are not tensors
        (_non_tensors) UNKNOWN."""
        for name in self._non_tensors(test, truth):
            self.env.bind(cst.Name(name), T.UNKNOWN)

    def _narrow(self, test: cst.BaseExpression, holds: bool) -> tuple[TypeEnv, dict[str, T]] | None:
        """Where an operand runs only while `test` is `holds` (`isinstance(k, int) and k > 0`, the
        body of `... if isinstance(k, int) else ...`), _not_a_tensor for the walk there; returns
        what _widen restores, or None when nothing was bound."""
        names = self._non_tensors(test, holds)
        if not names:
            return None
        saved = (self.env, self.env.bound())
        for name in names:
            self.env.bind(cst.Name(name), T.UNKNOWN)
        return saved

    @staticmethod
    def _widen(saved: tuple[TypeEnv, dict[str, T]] | None) -> None:
        """Undo a _narrow."""
        if saved is not None:
            saved[0].restore(saved[1])

    def _enter_conditional(self, node: cst.IfExp | cst.BooleanOperation) -> None:
        """`slice(-k, None) if isinstance(k, int) else k`, `isinstance(k, int) and k > 0`: a name
        the test shows is no tensor where the operand runs is no tensor while the walk is in the
        expression (for a conditional expression, its `else` too: precision first). Call from
        visit_IfExp / visit_BooleanOperation; _leave_conditional restores it."""
        if isinstance(node, cst.IfExp):
            saved = self._narrow(node.test, holds=True)
        else:
            saved = self._narrow(node.left, holds=isinstance(node.operator, cst.And))
        self.__dict__.setdefault("_conditionals", []).append(saved)

    def _leave_conditional(self) -> None:
        """Undo the innermost _enter_conditional (call from leave_IfExp / leave_BooleanOperation)."""
        stack = self.__dict__.get("_conditionals")
        self._widen(stack.pop() if stack else None)

    def _switch_branch(self, node: cst.If | cst.Else) -> None:
        """`node` is the `else`/`elif` of the innermost open `if`: keep its body's state and walk
        this path from the state before the `if`."""
        branches = self.__dict__.get("_branches")
        if branches and branches[-1].node.orelse is node and branches[-1].body is None:
            branch = branches[-1]
            branch.body = branch.env.bound()
            self._unnarrow(branch, branch.body)
            branch.env.restore(branch.before)
            self._not_a_tensor(branch.node.test, truth=False)  # the `else` of `if isinstance(x, Tensor):`

    def leave_Assign(self, original_node: cst.Assign) -> None:
        if self.env is not None:
            kind = self.env.kind(original_node.value)
            elements = (self.env.element_kinds(original_node.value)
                        if any(isinstance(t.target, (cst.Tuple, cst.List)) for t in original_node.targets)
                        else None)
            for target in original_node.targets:
                self.env.bind(target.target, kind, elements)
                self._keep_declared(target.target)

    def _keep_declared(self, target: cst.BaseExpression) -> None:
        """A parameter annotated as a tensor that `target` rebound to a value of unknown kind stays
        a tensor, as mypy reads a declared type: `edge_type: OptTensor` rebound to
        `adj.storage.value()`, or `x, labels = x[0], getattr(x, "labels", None)`."""
        assert self.env is not None
        if isinstance(target, cst.Name):
            if target.value in self.env.declared and self.env.names.get(target.value) is T.UNKNOWN:
                self.env.bind(target, T.TENSOR)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for el in target.elements:
                if not isinstance(el, cst.StarredElement):
                    self._keep_declared(el.value)

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
        self.env.bind(node.target, self.env.element_kind(node.iter), self.env.zipped_kinds(node.iter))

    # A comprehension's targets are bound while the walk is inside it (its element comes before
    # its `for` clauses in the tree, so all are bound on entry) and unbound on leaving it.
    def _enter_comprehension(self, node: cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp) -> None:
        if self.env is None:
            return
        self.__dict__.setdefault("_comprehensions", []).append((node, self.env.bound()))
        clause: cst.CompFor | None = node.for_in
        while clause is not None:
            self.env.bind(clause.target, self.env.element_kind(clause.iter), self.env.zipped_kinds(clause.iter))
            self._loop_target(clause.target, clause.iter)
            clause = clause.inner_for_in

    def _leave_comprehension(self, node: cst.CSTNode) -> None:
        stack = self.__dict__.get("_comprehensions")
        if self.env is not None and stack and stack[-1][0] is node:
            self.env.restore(stack.pop()[1])

    def _loop_target(self, target: cst.BaseExpression, it: cst.BaseExpression) -> None:
        """A loop's or comprehension's `for` target was bound to what iterating `it` gives (a hook)."""

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _enter_comprehension
    leave_ListComp = leave_SetComp = leave_GeneratorExp = leave_DictComp = _leave_comprehension


class ReturnCollector(Binder):
    """The kinds a function returns: binds its body in order and records each `return`'s kind.

    Nested functions, classes and lambdas are skipped. A generator's result is not its return
    value but an iterator of what it yields: a sequence of tensors when every `yield` gives a
    tensor or a tuple display of tensors (`for xb, yb in batches(x, y)` binds tensors).
    """

    def __init__(self, env: TypeEnv) -> None:
        self.env = env
        self.kinds: list[T] = []
        self.tuples: list[list[T] | None] = []  # per `return`: its tuple display's element kinds
        self.generator = False
        self.yields_tensors = True  # every `yield` so far gives a tensor or a tuple of tensors

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Yield(self, node: cst.Yield) -> bool:
        self.generator = True
        value = node.value
        if isinstance(value, cst.Tuple):
            kinds = self.env.element_kinds(value) if self.env is not None else None
            tensors = bool(kinds) and all(k in TENSORISH for k in kinds)
        else:  # `yield from`, a bare `yield` or another value: not known to give tensors
            tensors = isinstance(value, cst.BaseExpression) and self.env is not None \
                and self.env.kind(value) in TENSORISH
        self.yields_tensors = self.yields_tensors and tensors
        return False

    def visit_Return(self, node: cst.Return) -> bool:
        assert self.env is not None
        self.kinds.append(self.env.kind(node.value) if node.value is not None else T.SCALAR)
        self.tuples.append(self.env.element_kinds(node.value) if isinstance(node.value, cst.Tuple) else None)
        return False

    def result(self) -> T:
        """The joined return kind (tensors.join_kinds); for a generator, TENSOR_SEQ when it
        yields only tensors or tuples of tensors, else UNKNOWN."""
        if self.generator:
            return T.TENSOR_SEQ if self.yields_tensors else T.UNKNOWN
        return join_kinds(self.kinds)

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
