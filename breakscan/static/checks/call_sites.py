"""Parameter kinds from call sites, and return kinds of called functions (the values family).

`CallSites` finds the calls of a module's private functions in one untyped pass, `ArgKinds` records
the kinds of their arguments, and `CallSiteInference` (mixed into the walker, RegionVisitor) joins
them per parameter and infers what a called function returns.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable

import libcst as cst

from breakscan.static.checks.base import CheckBase
from breakscan.static.checks.binding import Binder, ReturnCollector, all_params, param_kind
from breakscan.static.generics import generic_return, union_members
from breakscan.static.index import ClassInfo, FunctionInfo, ModuleInfo, bound_classes, module_function_calls
from breakscan.static.regions import PARAM_READ_DEPTH, RETURN_READ_DEPTH, Region, RegionKey
from breakscan.static.module_globals import global_kind
from breakscan.static.syntax import dotted_name, nested_function
from breakscan.static.tensors import (
    TENSOR_MAPS,
    TENSORISH,
    T,
    TypeEnv,
    annotation_elements,
    annotation_kind,
    element_classes,
    self_attribute,
    target_names,
)
from breakscan.static.walk import iter_nodes, walk

_DECIDING = re.compile(r"[<>]|[=!]=|\b(?:if|while|in)\b|\b(?:int|float|bool|range)\(")


def _varying_params(node: cst.FunctionDef, sites: list, module: cst.Module | None, bound: bool = False) -> set[str]:
    """The parameters of `node` that some call `(call, caller def or None)` of `sites` passes a
    name counting up in its scope (a `for` target, an augmented assignment: `for step in
    range(n)`, `step += 1`), or that two calls pass different number literals (`module`: the
    calls' module, the scope of module-level calls). The caller keeps those every call passes a
    Python value. `bound`: the calls are of an instance, whose first parameter is `self`."""
    positional = [p.name.value for p in (*node.params.posonly_params, *node.params.params)][1 if bound else 0:]
    counters: dict[int, set[str]] = {}
    literals: dict[str, set[str]] = {}
    varying: set[str] = set()
    for call, caller in sites:
        if not isinstance(call, cst.Call):
            continue
        scope = caller if caller is not None else module
        if scope is None:
            continue
        if id(scope) not in counters:
            counters[id(scope)] = _counter_names(scope)
        for i, arg in enumerate(call.args):
            if arg.star:  # `*args`: the positions after it are not known
                break
            param = arg.keyword.value if arg.keyword is not None else positional[i] if i < len(positional) else None
            if param is None:
                continue
            value = arg.value
            if isinstance(value, cst.Name) and value.value in counters[id(scope)]:
                varying.add(param)
            elif isinstance(value, (cst.Integer, cst.Float)):
                literals.setdefault(param, set()).add(value.value)
    varying.update(name for name, values in literals.items() if len(values) > 1)
    return varying


def _passed_numbers(node: cst.FunctionDef, calls: list) -> dict[str, set[str]] | None:
    """Per parameter of `node`, the values `calls` (plain calls, at least one) give it: the text of
    a number literal passed or left as the default, or a "?..." marker for anything else (each
    unknown value distinct). None when there is no call, one is not a `cst.Call`, or one unpacks
    `*args` / `**kwargs` (what it passes is not known)."""
    params = [p for p in (*node.params.posonly_params, *node.params.params)]
    positional = [p.name.value for p in params]
    defaults = {p.name.value: p.default for p in (*params, *node.params.kwonly_params)}
    values: dict[str, set[str]] = {name: set() for name in defaults}
    if not calls or not all(isinstance(c, cst.Call) for c in calls):
        return None
    for call in calls:
        passed: set[str] = set()
        for i, arg in enumerate(call.args):
            if arg.star:
                return None
            name = arg.keyword.value if arg.keyword is not None else positional[i] if i < len(positional) else None
            if name not in values:
                continue
            passed.add(name)
            value = arg.value
            values[name].add(value.value if isinstance(value, (cst.Integer, cst.Float)) else f"?{id(value)}")
        for name, default in defaults.items():
            if name not in passed:
                values[name].add(default.value if isinstance(default, (cst.Integer, cst.Float)) else "?")
    return values


def _fixed_params(node: cst.FunctionDef, sites: list) -> set[str]:
    """The parameters of `node` that each call `(call, caller)` of `sites` (at least one, all of
    them plain calls) leaves to its number default or passes the same number literal: one value
    at every call, so Dynamo specializes once and never recompiles on them (`generate(model, idx)`
    with `temperature=1.0`)."""
    values = _passed_numbers(node, [call for call, _ in sites])
    if values is None:
        return set()
    return {name for name, seen in values.items() if len(seen) == 1 and not next(iter(seen)).startswith("?")}


def _counter_names(scope: cst.CSTNode) -> set[str]:
    """Names a scope re-binds as it goes: `for` targets (tuple elements too) and augmented
    assignments (a module: outside its defs and classes, whose names are their own)."""
    names: set[str] = set()
    if isinstance(scope, cst.Module):
        outside = [stmt for stmt in scope.body if not isinstance(stmt, (cst.FunctionDef, cst.ClassDef))]
        for stmt in outside:
            names |= _counter_names(stmt)
        return names
    for loop in iter_nodes(scope, cst.For):
        targets = loop.target.elements if isinstance(loop.target, (cst.Tuple, cst.List)) else [loop.target]
        names.update(t.value.value if isinstance(t, cst.Element) and isinstance(t.value, cst.Name)
                     else t.value if isinstance(t, cst.Name) else "" for t in targets)
    for aug in iter_nodes(scope, cst.AugAssign):
        if isinstance(aug.target, cst.Name):
            names.add(aug.target.value)
    names.discard("")
    return names


_NUMBER_SEQUENCES = {"list", "tuple", "List", "Tuple", "Sequence"}


def _numeric_annotation(param: cst.Param) -> bool:
    """Whether a parameter is annotated `int`, `float` or `bool`, or a list, tuple or `Sequence`
    of them (`list[tuple[int, int]]`, `Tuple[int, ...]`), or `Optional[...]`/`... | None` of one."""
    return _numbers(param.annotation.annotation if param.annotation is not None else None)


def _numbers(ann: cst.BaseExpression | None) -> bool:
    """_numeric_annotation of one annotation expression."""
    if isinstance(ann, cst.BinaryOperation):  # `int | None`
        ann = ann.left if isinstance(ann.right, cst.Name) and ann.right.value == "None" else None
    elif isinstance(ann, cst.Subscript) and isinstance(ann.value, cst.Name) and ann.value.value == "Optional" \
            and len(ann.slice) == 1 and isinstance(ann.slice[0].slice, cst.Index):
        ann = ann.slice[0].slice.value
    if isinstance(ann, cst.Subscript) and (dotted_name(ann.value) or "").rsplit(".", 1)[-1] in _NUMBER_SEQUENCES:
        members = [e.slice.value for e in ann.slice if isinstance(e.slice, cst.Index)]
        numbers = [m for m in members if not isinstance(m, cst.Ellipsis)]  # `Tuple[int, ...]`
        return len(members) == len(ann.slice) and bool(numbers) and all(_numbers(m) for m in numbers)
    return isinstance(ann, cst.Name) and ann.value in ("int", "float", "bool")


def _number_or_tensor_annotation(param: cst.Param) -> bool:
    """Whether a parameter is annotated as a number or a tensor (`int | torch.Tensor`,
    `Union[float, Tensor]`, `None` allowed): annotation_kind takes it for a tensor, and its calls
    may say which it is."""
    ann = param.annotation.annotation if param.annotation is not None else None
    if not isinstance(ann, (cst.BinaryOperation, cst.Subscript)):
        return False  # one name (`torch.Tensor`) is no union: most annotations stop here
    names = {(dotted_name(m) or "").rsplit(".", 1)[-1] for m in _union_leaves(ann)}
    return "Tensor" in names and bool(names & {"int", "float", "bool"})


def _union_leaves(ann: cst.BaseExpression) -> list[cst.BaseExpression]:
    """generics.union_members of `ann`, unpacked through nested unions (`Optional[Union[int, Tensor]]`)."""
    members = union_members(ann)
    if len(members) == 1 and members[0] is ann:
        return members
    return [leaf for member in members for leaf in _union_leaves(member)]


def _number_arithmetic(expr: cst.BaseExpression) -> bool:
    """Whether `expr` is names, attributes and constants under arithmetic (`t - 1`,
    `timestep - self.step // n`): a number shifted or scaled, which stays a number or a 0-dim
    tensor with the names it reads. A call or an index (`torch.arange(h)`, `x[t]`) makes a
    value of its own kind."""
    stack = [expr]
    while stack:
        e = stack.pop()
        if isinstance(e, cst.BinaryOperation):
            stack += [e.left, e.right]
        elif isinstance(e, cst.UnaryOperation):
            stack.append(e.expression)
        elif isinstance(e, cst.Attribute):
            stack.append(e.value)
        elif not isinstance(e, (cst.Name, cst.Integer, cst.Float)):
            return False
    return True


def derived_names(node: cst.FunctionDef, name: str) -> set[str]:
    """`name` and the locals of `node` assigned from it by number arithmetic
    (`_number_arithmetic`), directly or through one another (`t = timestep`, `prev = t - 1`):
    the names whose value follows a number parameter's kind. A flow-insensitive closure over
    the def's assignments (nested defs included), for finding where the parameter decides
    something."""
    edges: list[tuple[set[str], set[str]]] = []  # (names read, names stored) per assignment
    for stmt in iter_nodes(node.body, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
        value = stmt.value
        if value is None or not _number_arithmetic(value):
            continue
        targets = [t.target for t in stmt.targets] if isinstance(stmt, cst.Assign) else [stmt.target]
        stored = {n for t in targets for n in target_names(t)}
        if stored:
            edges.append(({n.value for n in iter_nodes(value, cst.Name)}, stored))
    found = {name}
    grew = True
    while grew:
        grew = False
        for read, stored in edges:
            if read & found and not stored <= found:
                found |= stored
                grew = True
    return found


def module_numbers(module: cst.Module | None) -> set[str]:
    """Names the module-level code (its `if`, `for`, `while`, `with` and `try` bodies included;
    not defs or classes) binds only to Python numbers: a `for` target over `range(...)` (or the
    index of `enumerate(...)`), a number literal, an augmented assignment of a number literal
    (`for step in range(n): train_step(x, step)`, `step = 0` then `step += 1`). A script's loop
    counter passed to a compiled function is an int, not a tensor."""
    if module is None:
        return set()
    numbers: dict[str, bool] = {}

    def note(target: cst.BaseExpression, is_number: bool) -> None:
        if isinstance(target, cst.Name):
            numbers[target.value] = numbers.get(target.value, True) and is_number
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                note(element.value, False)

    def number(expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
            expr = expr.expression
        return isinstance(expr, (cst.Integer, cst.Float))

    todo: list[cst.CSTNode] = list(module.body)
    while todo:
        stmt = todo.pop()
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            numbers[stmt.name.value] = False
            continue
        if isinstance(stmt, cst.For):
            it, target = stmt.iter, stmt.target
            counter = isinstance(it, cst.Call) and dotted_name(it.func) == "range"
            if isinstance(it, cst.Call) and dotted_name(it.func) == "enumerate" and isinstance(target, cst.Tuple) \
                    and len(target.elements) == 2:
                note(target.elements[0].value, True)
                note(target.elements[1].value, False)
            else:
                note(target, counter)
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign):
                    for t in small.targets:
                        note(t.target, number(small.value))
                elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
                    note(small.target, small.value is not None and number(small.value))
                elif isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
                    for alias in small.names:
                        bound = alias.asname.name if alias.asname is not None else alias.name
                        if isinstance(bound, cst.Name):
                            numbers[bound.value] = False
            continue
        elif isinstance(stmt, cst.With):
            for item in stmt.items:
                if item.asname is not None:
                    note(item.asname.name, False)
        for block in (getattr(stmt, "body", None), getattr(stmt, "orelse", None), getattr(stmt, "finalbody", None)):
            while isinstance(block, (cst.Else, cst.If, cst.Finally)):  # `elif` chains, `else:` blocks
                if isinstance(block, cst.If):
                    todo.append(block)
                    block = None
                    break
                block = block.body
            if isinstance(block, cst.IndentedBlock):
                todo.extend(block.body)
        for handler in getattr(stmt, "handlers", ()):
            todo.extend(handler.body.body)
    return {name for name, ok in numbers.items() if ok}


def _is_private(name: str) -> bool:
    """`_helper`, not `__init__`: a name other modules are not meant to call."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


# Decorators that keep a private function a plain function whose calls are all visible here.
_TRANSPARENT_DECORATORS = {"staticmethod", "classmethod"}
# Decorators that change the grad or autocast mode around the call and pass the arguments through:
# Dynamo traces the function with what its callers pass (measured on 2.13 and 2.15)
GRAD_MODE_DECORATORS = frozenset({
    "torch.no_grad", "torch.enable_grad", "torch.inference_mode", "torch.set_grad_enabled",
    "torch.autograd.no_grad", "torch.autograd.enable_grad", "torch.autograd.grad_mode.no_grad",
    "torch.autograd.grad_mode.enable_grad", "torch.autograd.grad_mode.inference_mode",
    "torch.autocast", "torch.amp.autocast", "torch.cuda.amp.autocast", "torch.cpu.amp.autocast",
})
# Module classes whose instances iterate over their submodules (`for layer in self`)
MODULE_CONTAINERS = frozenset({"torch.nn.Sequential", "torch.nn.ModuleList",
                               "torch.nn.modules.container.Sequential", "torch.nn.modules.container.ModuleList"})
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


# Methods of str, dict and list that torch.Tensor does not have: a parameter read so is a Python
# value (`name.startswith("a")`, `cfg.items()`, `acc.append(x)`), never a tensor.
PYTHON_VALUE_METHODS = frozenset({
    "startswith", "endswith", "lower", "upper", "strip", "lstrip", "rstrip", "join", "format", "encode",
    "isdigit", "isalpha", "isalnum", "splitlines", "casefold", "capitalize", "title", "zfill", "partition",
    "rpartition", "find", "rfind", "removeprefix", "removesuffix", "items", "keys", "get",
    "setdefault", "popitem", "append", "extend", "insert",
})


def python_value_params(node: cst.FunctionDef) -> frozenset[str]:
    """The parameters of `node` whose body calls a PYTHON_VALUE_METHODS method on them."""
    params = {p.name.value for p in all_params(node)}
    return frozenset(a.value.value for a in iter_nodes(node.body, cst.Attribute)
                     if isinstance(a.value, cst.Name) and a.value.value in params and a.attr.value in PYTHON_VALUE_METHODS)


def _is_literal(expr: cst.BaseExpression) -> bool:
    """A Python value written out: a number, string, `True`/`False`/`None`, `-1`, or a tuple/list
    of those."""
    if isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString,
                         cst.FormattedString)):
        return True
    if isinstance(expr, cst.Name):
        return expr.value in ("True", "False", "None")
    if isinstance(expr, cst.UnaryOperation):
        return _is_literal(expr.expression)
    if isinstance(expr, (cst.Tuple, cst.List)):
        return all(not isinstance(e, cst.StarredElement) and _is_literal(e.value) for e in expr.elements)
    return False


def _passed_literal(node: cst.FunctionDef, sites: list, name: str) -> bool:
    """Whether every call in `sites` (a call, or the argument tuple RootCalls took for one) passes
    a literal (`_is_literal`) as parameter `name` of `node`."""
    for call, _ in sites:
        expr = _site_argument(node, call, name)
        if expr is None or not _is_literal(expr):
            return False
    return True


def _site_argument(node: cst.FunctionDef, call: cst.Call | cst.Tuple | cst.List, name: str) -> cst.BaseExpression | None:
    """What a call of `node` (or the argument tuple RootCalls took for one) passes as its
    parameter `name`, by position or keyword; None when it passes nothing there."""
    positional = [p.name.value for p in (*node.params.posonly_params, *node.params.params)]
    i = positional.index(name) if name in positional else -1
    if isinstance(call, cst.Call):
        values = [a.value for a in call.args if a.keyword is None]
        by_keyword = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    else:
        values, by_keyword = [e.value for e in call.elements], {}
    return values[i] if 0 <= i < len(values) else by_keyword.get(name)


def _values_not_objects(node: cst.FunctionDef, joined: dict[str, T], sites: list) -> dict[str, T]:
    """`joined` (a compiled function's parameter kinds from its calls `sites`) without the Python
    values whose attributes the body reads: objects (`start.record()` on a CUDA event), whose
    methods may be the break, keep the root convention. A literal at every call (`fn(x, "abc")`)
    is a plain value whatever the body reads of it."""
    objects = {a.value.value for a in iter_nodes(node.body, cst.Attribute) if isinstance(a.value, cst.Name)}
    return {name: kind for name, kind in joined.items()
            if kind not in (T.SCALAR, T.SHAPE) or name not in objects or _passed_literal(node, sites, name)}


def compiled_name(value: cst.BaseExpression) -> cst.Name | cst.Attribute | None:
    """The function name a compile call applies to: `torch.compile(fn, ...)`,
    `torch.compile(backend=...)(fn)`, `torch._dynamo.optimize("eager")(fn)`,
    `torch._dynamo.explain(fn)`, also dotted (`torch.compile(engine.step)`); None otherwise."""
    if not isinstance(value, cst.Call) or not value.args or value.args[0].keyword is not None:
        return None
    func = value.func
    callee = dotted_name(func.func) if isinstance(func, cst.Call) else dotted_name(func)
    first = value.args[0].value
    return first if (callee or "").endswith(("compile", "optimize", "explain")) \
        and isinstance(first, (cst.Name, cst.Attribute)) else None


IMPORTERS_READ_MAX = 8  # modules importing a compiled function whose calls root_call_kinds reads


class RootCalls(cst.CSTVisitor):
    """The calls a module makes of module-level functions, in one pass over the whole module
    (module-level statements included): `sites[function]` lists `(call, outermost enclosing def
    or None)` for `name(...)`, where `name` is the function, a compiled alias of it (`fast =
    torch.compile(step)`) or, in a module that imports it, its imported name (`step(...)`,
    `engine.step(...)`). `escaped` holds the functions also used any other way (passed as a
    value, yielded to breakscan_examples, rebound, a nested def of that name): some of their
    calls cannot be seen here."""

    def __init__(self, names: dict[str, str], enclosing: cst.FunctionDef | None = None,
                 instances: bool = False, method: str | None = None) -> None:
        """`names`: callable name, plain or dotted -> the function it runs (itself, or an alias's
        target); `enclosing`: the def whose body is walked (a nested function's calls), None: a
        module; `instances`: the names are module instances, whose attribute reads
        (`model.eval()`, `model.parameters()`) are no use of `forward` (but `model.forward`);
        `method` (with `instances`): the calls recorded are `trainer.<method>(...)`, not the
        instances' own calls, and reading that attribute otherwise is a use the calls miss."""
        self.names = names
        self.enclosing = enclosing
        self.instances = instances
        self.method = method
        # a call, or the argument tuple of a `yield fn, (args)` in breakscan_examples
        self.sites: dict[str, list[tuple[cst.Call | cst.Tuple | cst.List, cst.FunctionDef | None]]] = {}
        self.escaped: set[str] = set()
        self._defs: list[cst.FunctionDef] = []
        self._allowed: set[int] = set()  # Name/Attribute nodes that are a callee, a def's name or an alias binding
        self._dotted = any("." in name for name in names)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._allowed.add(id(node.name))
        if self._defs and node.name.value in self.names:
            self.escaped.add(self.names[node.name.value])  # a nested def shadows it
        self._defs.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._defs.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        if compiled_name(node.value) is not None or (self.instances and isinstance(node.value, cst.Call)):
            self._allowed.update(id(t.target) for t in node.targets)  # `fast = torch.compile(step)`

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        compiled = compiled_name(node)
        if compiled is not None:
            self._allowed.add(id(compiled))  # compiling it is not a use the calls miss
        if isinstance(func, cst.Call):  # `torch.compile(fn, backend="eager")(x, 3)`
            func = compiled_name(func)  # type: ignore[assignment]
        if self.method is not None:
            if isinstance(func, cst.Attribute) and func.attr.value == self.method \
                    and isinstance(func.value, cst.Name) and func.value.value in self.names:
                self._allowed.add(id(func.value))
                caller = self._defs[0] if self._defs else self.enclosing
                self.sites.setdefault(self.names[func.value.value], []).append((node, caller))
            elif isinstance(func, cst.Name) and func.value in self.names:
                self._allowed.add(id(func))  # the instance's own call: no use of the method
            return
        name = func.value if isinstance(func, cst.Name) else \
            dotted_name(func) if self._dotted and isinstance(func, cst.Attribute) else None
        if name in self.names:
            self._allowed.add(id(func))
            caller = self._defs[0] if self._defs else self.enclosing
            self.sites.setdefault(self.names[name], []).append((node, caller))

    def visit_Yield(self, node: cst.Yield) -> None:
        """`yield fn, (x, 3)` in `breakscan_examples`: the dynamic pass calls `fn(x, 3)`; the
        argument tuple stands for the call (ArgKinds records its elements' kinds)."""
        value = node.value
        if not (self._defs and self._defs[0].name.value == "breakscan_examples" and isinstance(value, cst.Tuple)
                and len(value.elements) == 2 and isinstance(value.elements[0].value, cst.Name)
                and value.elements[0].value.value in self.names):
            return
        args = value.elements[1].value
        if isinstance(args, (cst.Tuple, cst.List)) and not isinstance(value.elements[1], cst.StarredElement):
            self._allowed.add(id(value.elements[0].value))
            self.sites.setdefault(self.names[value.elements[0].value.value], []).append((args, self._defs[0]))

    def visit_Import(self, node: cst.Import) -> bool:
        return False  # `import pkg.engine` binds a name; it is no use of the function

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False  # `from .engine import step`: the importer's binding, its calls follow

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self.names and id(node) not in self._allowed:
            self.escaped.add(self.names[node.value])

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._allowed.add(id(node.attr))  # `sched.step` reads an attribute, not the name `step`
        if self.instances and isinstance(node.value, cst.Name) and node.value.value in self.names \
                and node.attr.value not in ("forward", "__call__", self.method):
            self._allowed.add(id(node.value))
        if self._dotted and id(node) not in self._allowed and (name := dotted_name(node)) in self.names:
            self.escaped.add(self.names[name])


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
            for param in all_params(node):
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

    def _elements(self, node: cst.Tuple | cst.List) -> None:
        """An argument tuple standing for a call (RootCalls: `yield fn, (x, 3)`)."""
        if id(node) in self.wanted and self.env is not None:
            self.out[id(node)] = None if any(isinstance(e, cst.StarredElement) for e in node.elements) else [
                (None, self.env.kind(e.value)) for e in node.elements]

    def visit_Tuple(self, node: cst.Tuple) -> None:
        self._elements(node)

    def visit_List(self, node: cst.List) -> None:
        self._elements(node)


def _has_plain_tensor(returns: tuple[T, list[T] | None]) -> bool:
    """Whether a return's kinds (kind, tuple element kinds) hold a tensor of unknown dtype."""
    return returns[0] is T.TENSOR or T.TENSOR in (returns[1] or ())


def _refined(annotated: tuple[T, list[T] | None], read: tuple[T, list[T] | None] | None) -> tuple[T, list[T] | None]:
    """The kinds a return annotation gives (`-> Tuple[Tensor, Tensor]`), with a tensor the body
    shows holds booleans (`read`, the body's own kinds) taken as a boolean tensor; nothing else
    of the body's reading is taken (the annotation is what mypy would check)."""
    if read is None:
        return annotated

    def one(declared: T, found: T) -> T:
        return T.BOOL_TENSOR if declared is T.TENSOR and found is T.BOOL_TENSOR else declared

    kind = one(annotated[0], read[0])
    elements = annotated[1]
    if elements is not None and read[1] is not None and len(elements) == len(read[1]):
        elements = [one(d, f) for d, f in zip(elements, read[1])]
    return kind, elements


def _declared_tensors(node: cst.FunctionDef, kinds: dict[str, T]) -> frozenset[str]:
    """The parameters of `node` annotated as a tensor (`edge_type: OptTensor`; `kinds` from
    `_param_kinds`, project aliases resolved): as for mypy, the annotation is their type in the
    whole body, so a value of unknown kind assigned to one (on a path Dynamo may not even take)
    leaves it a tensor (Binder.leave_Assign)."""
    return frozenset(p.name.value for p in all_params(node)
                     if p.annotation is not None and kinds.get(p.name.value) is T.TENSOR)


def _submodule_receiver(receiver: cst.BaseExpression, loops: dict[str, str]) -> str | None:
    """The `self` attribute a method call's receiver holds: "sub" for `self.sub`, "layers" for a
    loop variable over `self.layers` or an element `self.layers[i]`; None for other receivers."""
    if held := self_attribute(receiver):
        return held
    if isinstance(receiver, cst.Name):
        return loops.get(receiver.value) or None
    if isinstance(receiver, cst.Subscript):  # `self.meters["train"]`: an element of `self.meters`
        return _submodule_receiver(receiver.value, {})
    return None


def _argument_kinds(call: cst.Call, env: TypeEnv) -> list[tuple[str | None, T]] | None:
    """`[(keyword or None, kind), ...]` of `call`'s arguments in `env`; None when it unpacks
    `*args`/`**kwargs` or no argument's kind is known (nothing to read the callee with)."""
    if any(a.star for a in call.args):
        return None
    found = [(a.keyword.value if a.keyword is not None else None, env.kind(a.value)) for a in call.args]
    return found if any(kind is not T.UNKNOWN for _, kind in found) else None


_UNINFORMATIVE_ANNOTATIONS = {"Any", "Hashable", "object"}


def _says_nothing(param: cst.Param) -> bool:
    """No annotation, or one that allows any value (`Any`, `Hashable`, `object`): the kinds its
    call sites pass decide."""
    if param.annotation is None:
        return True
    name = dotted_name(param.annotation.annotation)
    return name is not None and name.rsplit(".", 1)[-1] in _UNINFORMATIVE_ANNOTATIONS


def _decorator_names(node: cst.FunctionDef) -> set[str | None]:
    """The dotted names of a def's decorators as written (`torch.no_grad` for `@torch.no_grad()`),
    None for one that is no name."""
    return {dotted_name(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator)
            for d in node.decorators}


def _unannotated(node: cst.FunctionDef, name: str) -> bool:
    """Whether parameter `name` of `node` has no annotation (an annotation's kind is final)."""
    return all(p.annotation is None for p in all_params(node) if p.name.value == name)


def store_targets(fn: cst.FunctionDef) -> list[cst.BaseExpression]:
    """The targets a def's body stores to (stores_in)."""
    return stores_in(fn.body)


def stores_in(tree: cst.CSTNode) -> list[cst.BaseExpression]:
    """The targets `tree` stores to (assignments, augmented and annotated ones, walrus, `for` and
    `with ... as`), nested tuples unpacked."""
    out: list[cst.BaseExpression] = []
    kinds = (cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.NamedExpr, cst.For, cst.CompFor, cst.AsName)
    for node in iter_nodes(tree, kinds):
        if isinstance(node, cst.AssignTarget):
            out.append(node.target)
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign, cst.NamedExpr, cst.For, cst.CompFor)):
            out.append(node.target)
        elif isinstance(node, cst.AsName):
            out.append(node.name)
    expanded: list[cst.BaseExpression] = []
    while out:
        target = out.pop()
        if isinstance(target, (cst.Tuple, cst.List)):
            out.extend(el.value for el in target.elements)
        else:
            expanded.append(target)
    return expanded


def _join_arguments(kinds: list[T]) -> T:
    """The kind of a parameter from the kinds passed at all its call sites: the same tensor kind
    everywhere (tensors and boolean tensors: a tensor), a `str` enum member at one call and
    Python values or unknowns at the others (the line of a `str` method on it breaks when that
    call reaches it: BRK247 is the only reader of the kind), or Python values and shapes everywhere (a
    shape if any is one: `torch.div(x.size(1), w)` on them folds), else UNKNOWN. A parameter that
    is a tensor at some calls and a Python value at others stays unknown."""
    distinct = set(kinds)
    if not kinds:
        return T.UNKNOWN
    if T.STR_ENUM in distinct and distinct <= {T.STR_ENUM, T.SCALAR, T.UNKNOWN}:
        return T.STR_ENUM  # a traced call passes a member: a `str` method on it breaks there (BRK247)
    if len(distinct) == 1 and distinct <= {*TENSORISH, T.TENSOR_SEQ, *TENSOR_MAPS, T.STR_ENUM}:
        return kinds[0]
    if distinct <= set(TENSORISH):
        return T.TENSOR
    if distinct <= set(TENSOR_MAPS):
        return T.TENSOR_MAP
    if distinct <= {T.SCALAR, T.SHAPE}:
        return T.SHAPE if T.SHAPE in distinct else T.SCALAR
    return T.UNKNOWN


class ProjectCallers:
    """The traced call sites of a project (RegionFinder.traced_callers) and, on demand, the
    inference of the other files that hold them (`load(path)`: a walker of that file whose own
    inference stays within the file, or None if it cannot be read; kept for the worker's life)."""

    def __init__(self, callers: dict[RegionKey, tuple[RegionKey, ...]],
                 load: Callable[[str], CallSiteInference | None], keep: int = 64,
                 member_params: dict[RegionKey, frozenset[str]] | None = None) -> None:
        """`member_params`: RegionFinder.member_params, the parameters a traced call passes a `str`
        enum member into (from every caller file)."""
        self.callers = callers
        self.member_params = member_params or {}
        self._load = load
        self._keep = keep
        self._visitors: dict[str, CallSiteInference | None] = {}
        self.return_depth = 0  # files now being read by `_returns_in_context`
        self.param_depth = 0  # caller files now joined by another file's `_infer_from_project`

    def visitor(self, path: str) -> CallSiteInference | None:
        """The inference of file `path` (parsed once; the `keep` most recent are kept)."""
        if path in self._visitors:
            found = self._visitors.pop(path)
        else:
            found = self._load(path)
            if found is not None:  # its returns may read other files' functions too; weakly, as
                found.peer_files = weakref.ref(self)  # a cycle would keep its tree for the cyclic GC
            while len(self._visitors) >= self._keep:
                self._visitors.pop(next(iter(self._visitors)))
        self._visitors[path] = found
        return found


class CallSiteInference(CheckBase):
    """The walker's type environments: a class's attributes, parameters from annotations, defaults
    and call sites, and the return kinds of called functions of this module."""

    regions: dict[int, Region]

    def _init_inference(self, functions: dict[tuple[str, int], cst.FunctionDef], source: str | None,
                        project_callers: ProjectCallers | None = None) -> None:
        """`functions`: syntax.indexed_functions of the module; `source`: its text (None: no call
        sites); `project_callers`: the traced call sites of the project (None: this module's only)."""
        self.functions = functions
        self.source = source
        self.project_callers = project_callers
        # Other files' inference, for what their functions return given a call's arguments: the
        # project's traced callers, also set on a caller file's visitor when it is loaded.
        self.peer_files: Callable[[], ProjectCallers | None] = (
            weakref.ref(project_callers) if project_callers is not None else lambda: None)
        self._walking: set[tuple[str, int]] = set()  # callers ArgKinds is walking now (recursion)
        self._by_path: dict[str, ModuleInfo] | None = None  # scanned modules by path (_class_at)
        self._returns: dict[str, T | None] = {}  # qualname -> kind; None while being inferred
        self._helper_tensors: dict[str, frozenset[str]] = {}  # class qualname -> _helper_tensor_attrs
        self._tuple_returns: dict[str, list[T] | None] = {}  # qualname -> element kinds (tuple_result)
        # (qualname, argument kinds) -> (kind, elements) read with those arguments; None: unknown
        self._context_returns: dict[tuple[str, tuple], tuple[T, list[T] | None] | None] = {}
        self._annotations: dict[str, tuple[T, list[T] | None]] = {}  # return annotation -> kinds
        self._annotations_parsed: dict[str, cst.BaseExpression | None] = {}  # type alias source -> parsed
        self._callee_returns: dict[tuple[str, str], str] = {}  # (class or "", name) -> its return annotation
        self._inferred: dict[str, dict[str, T] | None] = {}  # qualname -> parameter kinds from call sites
        self._sites: CallSites | None = None  # built on first need
        self.dynamic_shapes = False  # the region being checked is compiled with dynamic=True (engine)
        self._literals: dict[int, frozenset[str]] = {}  # def id -> parameters given number literals (BRK266)
        self.module_tree: cst.Module | None = None  # the whole module (RootCalls), set by the engine
        self._root_calls: RootCalls | None = None  # built on first need
        self._root_kinds: dict[str, dict[str, T]] = {}  # compiled function -> parameter kinds from its calls
        self._root_varying: dict[str, frozenset[str]] = {}  # compiled function -> root_varying_params
        self._root_fixed: dict[str, frozenset[str]] = {}  # compiled function -> root_fixed_params
        self._imported_varying: dict[str, set[str]] = {}  # compiled function -> _varying_params in importers
        self._source_lines: list[str] | None = None  # the module's lines, for _decides_on
        self._forward_varying: dict[str, frozenset[str]] = {}  # class -> forward_varying_params
        self._bound_classes: dict[str, dict[str, str]] = {}  # module -> index.bound_classes (_bound_in)
        self._python_value_params: dict[int, frozenset[str]] = {}  # id of a def -> python_value_params
        self._arg_kinds: dict[int, list[tuple[str | None, T]] | None] = {}  # ArgKinds.out, all callers
        self._walked_callers: set[tuple[str, int]] = set()
        self._dispatch: list[ClassInfo | None] = []  # the class `self.m()` resolves on, while ArgKinds walks

    def _root_env(self, region: Region) -> TypeEnv:
        return self._class_env(region.cls, region.function)

    def _function_info(self, qualname: str, occurrence: int = 0) -> FunctionInfo | None:
        """The index entry of this module's def `qualname` (`f`, `Class.m`, a compiled def nested
        in a test method), or None."""
        head, _, name = qualname.rpartition(".")
        cls = self.info.classes.get(head) if head else None
        fn = cls.methods.get(name) if cls is not None else self.info.functions.get(qualname)
        return fn if fn is not None and fn.occurrence == occurrence else None

    def _def_instances(self, qualname: str | None, occurrence: int = 0) -> dict[str, str]:
        """The local instances of this module's def `qualname`, each class qualified
        (FunctionInfo.local_classes); {} for none or an unknown def."""
        fn = self._function_info(qualname, occurrence) if qualname is not None else None
        return {name: self.info.qualify(c) for name, c in fn.local_classes.items()} if fn is not None else {}

    def _class_env(self, cls: ClassInfo | None, fn: FunctionInfo | str | None = None) -> TypeEnv:
        """A function scope knowing `cls`'s parameters, buffers, scalars and submodules, and the
        local instances of the def `fn` (its index entry or qualname) walked in it."""
        tensors: set[str] = set()
        scalars: set[str] = set()
        iterates = False
        properties: frozenset[str] = frozenset()
        subs: dict[str, list[str]] = {}
        modules: frozenset[str] | None = None
        str_enums: frozenset[str] = frozenset()
        if cls is not None:
            tensors, scalars, subs = self.index.class_attr_kinds(cls.qualname)
            str_enums = self.index.str_enum_attrs(cls.qualname)
            iterates = self.index.inherits(cls.qualname, MODULE_CONTAINERS)
            properties = self.index.property_names(cls.qualname)
            helper_tensors = self._helper_tensor_attrs(cls, subs)
            if helper_tensors:
                tensors = tensors | helper_tensors
                modules = frozenset(subs) - helper_tensors
        env = TypeEnv(self.info, self_tensors=tensors, self_scalars=scalars, self_iterates_modules=iterates,
                      self_properties=properties, returns=self._return_kind, tuple_returns=self._return_elements,
                      globals_=self._global_kind, self_sub_classes=subs, self_modules=modules,
                      holds_tensor=self.index.holds_tensor_attr,
                      properties_of=self.index.property_names, traced_random=self._traced_random,
                      self_str_enums=str_enums)
        if isinstance(fn, FunctionInfo):
            env.instances = {name: self.info.qualify(c) for name, c in fn.local_classes.items()}
        elif fn is not None:
            env.instances = self._def_instances(fn)
        return env

    def _helper_tensor_attrs(self, cls: ClassInfo, subs: dict[str, list[str]]) -> frozenset[str]:
        """The attributes `__init__` binds to what functions of this module return, when every one
        of those returns a tensor (`self.betas = betas_for_alpha_bar(n)` with the helper ending in
        `return torch.tensor(betas)`). The index records any call's result as a submodule
        (for `self.enc = build_encoder(cfg)`); read as one, indexing it with a tensor looked like
        indexing a module list. Memoized per class."""
        found = self._helper_tensors.get(cls.qualname)
        if found is None:
            attrs = set()
            for attr, held in subs.items():
                names = module_function_calls(self.info, held)
                if names and all(self._plain_returns(cst.Call(func=cst.Name(n)), (n, None))[0] is T.TENSOR
                                 for n in names):
                    attrs.add(attr)
            found = self._helper_tensors[cls.qualname] = frozenset(attrs)
        return found

    def _traced_random(self, qualname: str, call: cst.Call, env: TypeEnv) -> bool:
        """Whether Dynamo traces the `random` call `qualname` (`call`, made in `env`) into a
        tensor: no active rule breaks at it (BRK205 does for `random.random()` before 2.14), and it
        has no symbolic argument (`symbolic_random_call`)."""
        return not self.rules.rules_for_call(qualname) and not self.symbolic_random_call(call, env)

    def symbolic_random_call(self, call: cst.Call, env: TypeEnv) -> bool:
        """Whether a traced `random` call (`random.randint(0, width)`) gets a symbolic argument:
        in a region compiled with `dynamic=True` (`dynamic_shapes`, set per region by the
        engine), a size (`x.shape[0]`) or a parameter of the region function, which Dynamo makes
        a SymInt: a root's parameters, or a callee's that some call in this file passes a
        non-literal. Dynamo then does not trace the call ("Attempted to call function marked as
        skipped", GB0007, measured on 2.13 and 2.15) and the number is a Python one."""
        root = getattr(self, "_root", None)  # RegionVisitor's (region, def) being checked
        if not self.dynamic_shapes or root is None:
            return False
        region, node = root
        params = {p.name.value for p in all_params(node)} - {"self", "cls"}
        for arg in call.args:
            if env.kind(arg.value) is T.SHAPE:
                return True
            read = {n.value for n in iter_nodes(arg.value, cst.Name)} & params
            if read and (len(region.chain) <= 1 or not read <= self._literal_params(node)):
                return True
        return False

    def _literal_params(self, node: cst.FunctionDef) -> frozenset[str]:
        """The parameters of `node` that every call of it by name in this module's defs (at least
        one; `f(...)` or `obj.f(...)`) passes a number literal or leaves to its number default
        (`_passed_numbers`). Memoized per def."""
        key = id(node)
        if key not in self._literals:
            name = node.name.value
            calls = [call for fn in self.functions.values() for call in iter_nodes(fn, cst.Call)
                     if (dotted_name(call.func) or "").rpartition(".")[2] == name]
            values = _passed_numbers(node, calls)
            self._literals[key] = frozenset(
                param for param, seen in (values or {}).items() if not any(v.startswith("?") for v in seen))
        return self._literals[key]

    def _global_kind(self, qualname: str) -> T | None:
        """The kind of a module global of the project (module_globals.global_kind), or of a
        member of a project `str` enum (`Weight.SQUARE`: STR_ENUM)."""
        owner, _, member = qualname.rpartition(".")
        if owner and member[:1].isalpha() and member[:1].isupper() and self.index.is_str_enum(owner):
            return T.STR_ENUM
        return global_kind(self.index, qualname, self.info.name)

    def _callee(self, call: cst.Call) -> tuple[str, ClassInfo | None] | None:
        """(qualname, class) of a function or method defined in this module, if `call` calls one:
        `f(x)`, `self.m(x)`, `self.sched.m(x)` (a method of the one project class `__init__` builds
        into `self.sched`), `sched.m(x)` (a local instance, TypeEnv.instances), or `model.m(x)` (a
        module-level instance, ProjectIndex.instance_method)."""
        func = call.func
        if isinstance(func, cst.Name):
            fn = self.info.functions.get(func.value)
            return (fn.qualname, None) if fn is not None else None
        if not isinstance(func, cst.Attribute):
            return None
        # While ArgKinds walks a caller, `self` is that caller's class; else the region's.
        cls = self._dispatch[-1] if self._dispatch else (self.region.cls if self.region is not None else None)
        receiver = func.value
        found = None
        if isinstance(receiver, cst.Name) and receiver.value == "self":
            found = self.index.method(cls.qualname, func.attr.value) if cls is not None else None
        elif isinstance(receiver, cst.Attribute) and isinstance(receiver.value, cst.Name) \
                and receiver.value.value == "self" and cls is not None:
            classes = self.index.class_attr_kinds(cls.qualname)[2].get(receiver.attr.value, ())
            found = self.index.method(classes[0], func.attr.value) if len(classes) == 1 else None
        elif isinstance(receiver, cst.Subscript) and cls is not None and (held := self_attribute(receiver.value)):
            # `self.meters["train"].m(x)`: a method of the one project class of its elements
            classes = element_classes(self.index.class_attr_kinds(cls.qualname)[2].get(held, ()))
            found = self.index.method(classes[0], func.attr.value) if len(classes) == 1 else None
        elif isinstance(receiver, cst.Name) and self.env is not None \
                and (built := self.env.instance_of(receiver.value)):
            found = self.index.method(built, func.attr.value)  # `sched.m(x)`, `sched = Scheduler()` here
        elif isinstance(receiver, cst.Name) and (self.env is None or receiver.value not in self.env.names):
            # a local of the scope shadows a module-level instance
            found = self.index.instance_method(self.info.qualify(f"{receiver.value}.{func.attr.value}"))
        if found is not None and found[0].name == self.info.name:
            return found[2].qualname, found[1]
        return None

    def _return_kind(self, call: cst.Call, env: TypeEnv | None = None) -> T:
        """The joined kind of what a called project function returns (UNKNOWN if recursive);
        `env`: the scope of the call, whose argument kinds the callee's body may be read with."""
        return self._returns_of(call, env)[0]

    def _return_elements(self, call: cst.Call, env: TypeEnv | None = None) -> list[T] | None:
        """The element kinds of the tuple a called project function always returns, or None
        (`a, b = self._split(x)` binds `a` and `b` one by one)."""
        return self._returns_of(call, env)[1]

    def _returns_of(self, call: cst.Call, env: TypeEnv | None = None) -> tuple[T, list[T] | None]:
        """(joined kind, tuple element kinds) of what a called project function returns.

        First from the callee alone (`_plain_returns`: its annotations and defaults). When that
        says nothing and `env` is given, the body is read again with the kinds this call passes
        (`_returns_in_context`): Dynamo inlines each call with its own arguments, so
        `masked_mean(x * m, m)` returns a tensor even though `masked_mean` is unannotated.
        """
        name = dotted_name(call.func)
        if name is not None and self.index.is_module_class(self.info.qualify(name)):
            return T.MODULE, None  # `net = Net()` in the region: calling `net` runs Net.forward
        callee = self._callee(call)
        plain = self._plain_returns(call, callee)
        if env is None:
            return plain
        if plain[0] is not T.TENSOR and (generic := self._generic_return(call, env)) is not None:
            return generic
        known = plain[0] is not T.UNKNOWN or plain[1] is not None
        if known and not (callee is None and _has_plain_tensor(plain)):
            return plain
        args = _argument_kinds(call, env)
        if args is None and not call.args and self._instance_method(call, env) is not None:
            args = []  # `meter.compute()`: the body reads the object's attributes, not arguments
        if args is None:
            return plain
        if callee is not None:
            return self._returns_in_context(callee[0], callee[1], call, args) or plain
        if known:  # `-> Tuple[Tensor, Tensor]` of another file: its body may say which is a mask
            return _refined(plain, self._read_other_file(call, args, annotated=True, env=env))
        return self._read_other_file(call, args, env=env) or plain

    def _instance_method(self, call: cst.Call,
                         env: TypeEnv | None) -> tuple[ModuleInfo, ClassInfo, FunctionInfo] | None:
        """(module, class, method) that `obj.m(...)` runs, `obj` a local instance of a project
        class in `env` (TypeEnv.instances: `meter = Meter()`, `meter: Meter`), else None."""
        func = call.func
        if env is None or not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)):
            return None
        built = env.instance_of(func.value.value)
        return self.index.method(built, func.attr.value) if built else None

    def _generic_return(self, call: cst.Call, env: TypeEnv) -> tuple[T, list[T] | None] | None:
        """What a call of a module-level project function (this file's or another's) returns
        when its return annotation holds a TypeVar the call binds to a tensor
        (`generics.generic_return`: `x_t, *_ = convert_data_type(x, torch.Tensor)`); else None."""
        name = dotted_name(call.func)
        if name is None or (isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Name)
                            and call.func.value.value == "self"):
            return None
        hit = self.index.lookup_function(self.info.qualify(name))
        if hit is None or not hit[1].returns or not hit[1].param_annotations or "." in hit[1].qualname:
            return None
        module, fn = hit
        return generic_return(fn.returns, fn.param_annotations, fn.params, call, env,
                              lambda local: self.index.is_type_var(module.qualify(local)), self.info.qualify)

    def _read_other_file(self, call: cst.Call, args: list[tuple[str | None, T]],
                         annotated: bool = False, env: TypeEnv | None = None) -> tuple[T, list[T] | None] | None:
        """What the module-level function of another scanned file that `call` calls returns (or
        the method of a local instance's class there, `_instance_method` in `env`), its body read
        with the call's argument kinds (`_returns_in_context` in that file's visitor); None when
        unknown or too deep. `annotated`: the callee's return annotation is already taken, so
        any decorator is accepted (the body only refines the annotation's kinds)."""
        peers = self.peer_files()
        target = self._project_function(call)
        method = self._instance_method(call, env) if target is None else None
        if method is not None and method[0].name != self.info.name and method[2].occurrence == 0:
            target = str(method[0].path), method[2].qualname
        if target is None or peers is None or peers.return_depth >= RETURN_READ_DEPTH:
            return None
        other = peers.visitor(target[0])
        if other is None:
            return None
        cls = other.info.classes.get(target[1].rpartition(".")[0]) if "." in target[1] else None
        peers.return_depth += 1
        try:
            return other._returns_in_context(target[1], cls, call, args, any_decorator=annotated)
        finally:
            peers.return_depth -= 1

    def _plain_returns(self, call: cst.Call, callee: tuple[str, ClassInfo | None] | None) -> tuple[T, list[T] | None]:
        """(joined kind, tuple element kinds) of what `callee` (a function or `self` method of this
        module, or None: another file's, from its annotation) returns, read without the call's
        arguments.

        Memoized. Its parameters take only what their annotations and defaults say, not the kinds
        of their call sites: a call site's arguments may depend on this very return (`n, i =
        self._f(x)` then `self._g(n)`), and a cycle would leave those unknown for good.
        """
        if callee is None:
            return self._annotated_return(call)
        qualname, cls = callee
        if qualname in self._returns:
            return self._returns[qualname] or T.UNKNOWN, self._tuple_returns.get(qualname)
        node = self._defined_once(qualname)
        if node is None:
            return T.UNKNOWN, None
        self._returns[qualname] = None
        env = self._class_env(cls, qualname)
        env.names.update(self._param_kinds(node, None, cls is not None, False))
        collector = ReturnCollector(env)
        walk(node.body, collector)
        kind, elements = collector.result(), collector.tuple_result()
        self._returns[qualname] = kind
        self._tuple_returns[qualname] = elements
        return kind, elements

    def _defined_once(self, qualname: str) -> cst.FunctionDef | None:
        """The def of function or method `qualname` of this module, or None when it is not one
        or is defined twice (which one runs is unknown)."""
        node = self.functions.get((qualname, 0))
        return None if node is None or (qualname, 1) in self.functions else node

    def _returns_in_context(self, qualname: str, cls: ClassInfo | None, call: cst.Call,
                            args: list[tuple[str | None, T]],
                            any_decorator: bool = False) -> tuple[T, list[T] | None] | None:
        """(kind, tuple element kinds) that function `qualname` of this module returns when called
        as `call` with argument kinds `args`: its unannotated parameters take the kinds passed
        (`_join_sites` over this one call); None when nothing is known (defined twice, decorated
        other than `staticmethod`/`classmethod` unless `any_decorator`, recursive, or still
        unknown). Memoized per (function, argument kinds)."""
        node = self._defined_once(qualname)
        if node is None:
            return None
        decorators = _decorator_names(node)
        if not (any_decorator or self._transparent(decorators)):
            return None
        key = (qualname, tuple(args), any_decorator)
        if key in self._context_returns:
            return self._context_returns[key]
        self._context_returns[key] = None  # recursion: unknown
        env = self._class_env(cls, qualname)
        params = self._param_kinds(node, None, cls is not None, False)
        passed = self._join_sites(node, qualname, decorators, [(call, args)])
        params.update({name: kind for name, kind in passed.items()
                       if params.get(name, T.UNKNOWN) is T.UNKNOWN and _unannotated(node, name)})
        env.names.update(params)
        collector = ReturnCollector(env)
        walk(node.body, collector)
        found = (collector.result(), collector.tuple_result())
        result = None if found[0] is T.UNKNOWN and found[1] is None else found
        self._context_returns[key] = result
        return result

    def _project_function(self, call: cst.Call) -> tuple[str, str] | None:
        """(path, qualname) of the module-level project function in another scanned file that
        `call` calls by name (`helper(x)`, `utils.helper(x)` through this module's imports), or
        None (methods are not read across files: the cache keys a file on the files whose
        functions it reads, engine._callee_files)."""
        name = dotted_name(call.func)
        if name is None or (isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Name)
                            and call.func.value.value == "self"):
            return None
        hit = self.index.lookup_function(self.info.qualify(name))
        if hit is None or hit[0].name == self.info.name or hit[1].occurrence != 0 or "." in hit[1].qualname:
            return None
        return str(hit[0].path), hit[1].qualname

    def _annotated_return(self, call: cst.Call) -> tuple[T, list[T] | None]:
        """(kind, tuple element kinds) of a call of a project function or `self` method defined in
        another file, from its return annotation (`-> Tuple[Tensor, Tensor]`: a tensor pair);
        (UNKNOWN, None) when it has none, says nothing known, or the callee is not resolved.

        The index keeps each function's annotation (FunctionInfo.returns), and the cache's types
        summary holds them, so a caller's findings are re-checked when one changes."""
        func = call.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            cls = self._dispatch[-1] if self._dispatch else (self.region.cls if self.region is not None else None)
            if cls is None:
                return T.UNKNOWN, None
            key = (cls.qualname, func.attr.value)
            if key not in self._callee_returns:
                found = self.index.method(cls.qualname, func.attr.value)
                self._callee_returns[key] = found[2].returns if found is not None else ""
        else:
            name = dotted_name(func)
            if name is None:
                return T.UNKNOWN, None
            key = ("", self.info.qualify(name))
            if key not in self._callee_returns:
                hit = self.index.lookup_function(key[1])
                self._callee_returns[key] = hit[1].returns if hit is not None else ""
        returns = self._callee_returns[key]
        if not returns:
            return T.UNKNOWN, None
        if returns not in self._annotations:
            try:
                ann: cst.BaseExpression | None = cst.parse_expression(returns)
            except cst.ParserSyntaxError:
                ann = None
            self._annotations[returns] = (annotation_kind(ann) or T.UNKNOWN, annotation_elements(ann))
        return self._annotations[returns]

    def _bind_params(self, node: cst.FunctionDef, region: Region | None) -> None:
        assert self.env is not None
        is_root = region is not None and (len(region.chain) <= 1 or node.name.value == "forward")
        qualname = region.function.qualname if region is not None else None  # nested defs: no call sites
        kinds = self._param_kinds(node, qualname, region is not None and region.cls is not None, is_root)
        self.env.names.update(kinds)
        self.env.declared = _declared_tensors(node, kinds)

    def _param_kinds(self, node: cst.FunctionDef, qualname: str | None, has_self: bool,
                     is_root: bool) -> dict[str, T]:
        """Kinds of a function's parameters (`self`/`cls` first when `has_self` is left out).

        From annotations and defaults (`binding.param_kind`); a parameter that leaves unknown and has no
        annotation takes the kinds passed at its call sites in this module (`_inferred_params`),
        when `qualname` names the function.
        """
        kinds: dict[str, T] = {}
        inferred: dict[str, T] | None = None
        objects = self._def_instances(qualname)
        for i, param in enumerate(all_params(node)):
            name = param.name.value
            if i == 0 and has_self and name in ("self", "cls"):
                continue
            if name in objects and param.annotation is None:
                kinds[name] = T.UNKNOWN  # every call passes an object of a class (index.passed_instances)
                continue
            kind = param_kind(param, is_root, self._alias_annotation(param))
            if is_root and kind in TENSORISH and qualname is not None and param.annotation is None \
                    and param.default is None:  # a tensor by convention: unless its calls say otherwise
                kind = self.root_call_kinds(qualname, node).get(name, kind)
                if kind in TENSORISH and name in self._python_values(node):
                    kind = T.UNKNOWN  # `name.startswith("a")`: a str, whatever the convention says
            elif is_root and kind is T.SCALAR and qualname is not None and param.annotation is None \
                    and param.default is None:  # a number by its name (`n_chunks`): unless every call passes a tensor
                passed = self.root_call_kinds(qualname, node).get(name)
                kind = passed if passed in TENSORISH else kind
            if kind in (T.UNKNOWN, T.SCALAR) and param.default is not None and qualname is not None \
                    and self._is_str_enum_member(param.default):
                # `weight_type: Weight | str = Weight.SQUARE`: the enum member, unless calls pass a str
                if inferred is None:
                    inferred = self._inferred_params(qualname, project=not is_root)
                kind = T.STR_ENUM if inferred.get(name) in (None, T.UNKNOWN, T.STR_ENUM) else kind
            if kind in (T.UNKNOWN, T.SCALAR) and qualname is not None and name in self._member_params(qualname):
                kind = T.STR_ENUM  # a traced call passes a member (RegionFinder.member_params)
            if kind is T.UNKNOWN and _says_nothing(param) and qualname is not None:
                if inferred is None:
                    inferred = self._inferred_params(qualname, project=not is_root)
                kind = inferred.get(name, T.UNKNOWN)
            elif kind is T.SCALAR and qualname is not None and _numeric_annotation(param) \
                    and ((plural := is_root and has_self and self._holds_plural_tensor(qualname, name))
                         or self._decides_on(node, qualname, name)):
                # `step: int` (`sizes: list[tuple[int, int]]`) given a tensor at every call: Dynamo sees the
                # tensor, not the annotation
                passed = self.root_call_kinds(qualname, node) if is_root else None
                if passed is None:
                    if inferred is None:
                        inferred = self._inferred_params(qualname, project=True)
                    passed = inferred
                if passed.get(name) in TENSORISH:
                    kind = passed[name]
                elif plural and name not in passed:
                    kind = T.TENSOR
            elif kind is T.TENSOR and qualname is not None and _number_or_tensor_annotation(param) \
                    and self._decides_on(node, qualname, name):
                # `max_len: int | torch.Tensor` given a Python number at every call: Dynamo sees the number
                passed = self.root_call_kinds(qualname, node) if is_root else {}
                if name not in passed:
                    if inferred is None:
                        inferred = self._inferred_params(qualname, project=True)
                    passed = inferred
                if passed.get(name) in (T.SCALAR, T.SHAPE):  # a number or a size from a shape
                    kind = T.SCALAR
            kinds[name] = kind
        return kinds

    def _holds_plural_tensor(self, qualname: str, name: str) -> bool:
        """Whether the class of method `qualname` holds a tensor attribute named as the plural of
        parameter `name` (`self.timesteps` for `timestep`): the values callers pass are its
        elements (`for t in scheduler.timesteps: scheduler.step(out, t, x)`), 0-dim tensors
        whatever the annotation says."""
        cls_name = qualname.rpartition(".")[0]
        cls = self.info.classes.get(cls_name)
        return cls is not None and f"{name}s" in self.index.class_attr_kinds(cls.qualname)[0]

    def _member_params(self, qualname: str) -> frozenset[str]:
        """The parameters of this module's function `qualname` that a traced call anywhere in the
        project passes a `str` enum member into (ProjectCallers.member_params)."""
        peers = self.project_callers or self.peer_files()
        if peers is None:
            return frozenset()
        return peers.member_params.get((str(self.info.path), qualname, 0), frozenset())

    def _is_str_enum_member(self, node: cst.BaseExpression) -> bool:
        """`Weight.SQUARE` with `Weight` a project `str` enum (ProjectIndex.is_str_enum)."""
        name = dotted_name(node) if isinstance(node, cst.Attribute) else None
        return name is not None and self._global_kind(self.info.qualify(name)) is T.STR_ENUM

    def _decides_on(self, node: cst.FunctionDef, qualname: str, name: str) -> bool:
        """Whether the body of `node` may compare `name` (`if step > 10`), or a local computed
        from it (`prev = t - 1` ... `if prev >= 0`, derived_names), or convert one with `int`,
        `float`, `bool` or `range`: where a number parameter being a tensor breaks the graph,
        so the only place worth a project-wide read of its call sites. Over-approximated from
        the function's source lines (the index's line span): a line naming one that holds a
        comparison operator, `if`, `while`, `in` or one of those calls."""
        info = self.info.functions.get(qualname)
        if info is None and "." in qualname:
            cls, _, meth = qualname.rpartition(".")
            info = self.info.classes[cls].methods.get(meth) if cls in self.info.classes else None
        if info is None or self.source is None or not info.end_line:
            return True
        if self._source_lines is None:
            self._source_lines = self.source.splitlines()
        lines = self._source_lines[info.def_line:info.end_line]
        word = re.compile(rf"\b{re.escape(name)}\b")
        naming = [line for line in lines if word.search(line)]
        if any(_DECIDING.search(line) for line in naming):
            return True
        if not any("=" in line for line in naming):
            return False  # assigned to nothing: no local follows it
        derived = derived_names(node, name) - {name}
        if not derived:
            return False
        word = re.compile(rf"\b(?:{'|'.join(re.escape(n) for n in sorted(derived))})\b")
        return any(word.search(line) and _DECIDING.search(line) for line in lines)

    def _python_values(self, node: cst.FunctionDef) -> frozenset[str]:
        """python_value_params of `node`, once per function."""
        found = self._python_value_params.get(id(node))
        if found is None:
            found = self._python_value_params[id(node)] = python_value_params(node)
        return found

    def root_call_kinds(self, qualname: str, node: cst.FunctionDef | None = None) -> dict[str, T]:
        """Kinds of a compiled function's parameters from the calls made of it (RootCalls) in its
        own module (a module-level function: in any function, at module level, through a compiled
        alias) or in its enclosing def (a def nested in a test method, `node`: `opt_fn =
        torch.compile(fn, backend=cnt); opt_fn(x, 3)`), joined as for a helper's call sites
        (`_join_sites`). Dynamo's inputs are what those calls pass: `fn(torch.ones(3), 3)` makes
        the second parameter a Python int (a `range(n)` in the body is then traced), a tensor
        passed at every call is a tensor for sure. {} (the root convention holds) when another
        scanned module imports this one (module-level functions), the function is used other than
        by a call there, a call unpacks `*args` or lies where the walk cannot see it, or it is a
        method (`forward`). A Python value whose attributes the body reads (an object: a CUDA
        event, a config) is left to the convention."""
        if qualname in self._root_kinds:
            return self._root_kinds[qualname]
        self._root_kinds[qualname] = {}
        cls_name, _, meth = qualname.rpartition(".")
        # `self.step = torch.compile(self._step)`: its calls are `trainer.step(...)`
        stored = [a.rpartition(".")[2] for a, target in self.info.compiled_attrs.items() if target == qualname]
        attr = stored[0] if len(stored) == 1 else None
        if (attr or meth == "forward") and cls_name in self.info.classes and node is not None:
            found = self._instance_sites(self.info.classes[cls_name].qualname, node, attr)
            if found:
                joined = self._join_sites(node, qualname, set(), found, method=True)
                self._root_kinds[qualname] = _values_not_objects(node, joined, found)
            return self._root_kinds[qualname]
        if cls_name in self.info.classes and node is not None and self.module_tree is not None \
                and (found := self._bound_method_sites(self.info.classes[cls_name].qualname, meth, qualname, node)) \
                is not None:
            # `step = torch.compile(sched.step)` with `sched = Sched()`: its calls are `step(...)`
            if found:
                joined = self._join_sites(node, qualname, set(), found, method=True)
                self._root_kinds[qualname] = _values_not_objects(node, joined, found)
            return self._root_kinds[qualname]
        if "." in qualname:
            finder = self._nested_root_calls(qualname, node) if node is not None else None
        else:
            node = self.functions.get((qualname, 0))
            if node is None or (qualname, 1) in self.functions or self.module_tree is None:
                return {}
            finder = self._module_root_calls()
        if node is None or finder is None or qualname in finder.escaped:
            return {}
        found = self._root_sites(node, finder.sites.get(qualname, []))
        if found is not None and "." not in qualname and self.index.importers(self.info.name):
            imported = self._imported_root_sites(qualname, node)
            found = found + imported if imported is not None else None
        if not found:
            return {}
        joined = self._join_sites(node, qualname, set(), found, method=False, numbers_win=True)
        self._root_kinds[qualname] = _values_not_objects(node, joined, found)
        if "." not in qualname:
            scalars = {name for name, kind in self._root_kinds[qualname].items() if kind is T.SCALAR}
            if not self.index.importers(self.info.name):  # every call is in this module
                self._root_fixed[qualname] = frozenset(_fixed_params(node, finder.sites.get(qualname, [])))
            varying = _varying_params(node, finder.sites.get(qualname, []), self.module_tree)
            self._root_varying[qualname] = frozenset(scalars & (varying | self._imported_varying.get(qualname, set())))
        return self._root_kinds[qualname]

    def passed_arguments(self, qualname: str, param: str) -> list[tuple[cst.BaseExpression, cst.FunctionDef | None]] | None:
        """The expressions the calls of this module's function `qualname` pass for its parameter
        `param` (RootCalls: calls anywhere in the module or in the scanned modules that import it
        by name, through a compiled alias, or a `yield fn, (args)` of breakscan_examples); None
        unless every call is seen and passes it: a method or nested def, a function used other
        than by a call, an importer that cannot be read, a call that unpacks `*args` or leaves
        the parameter to its default. Each comes with the module-level def of this module that
        makes the call, None for a call elsewhere (module level, an importer)."""
        node = self.functions.get((qualname, 0))
        if "." in qualname or node is None or (qualname, 1) in self.functions or self.module_tree is None:
            return None
        own = self._module_root_calls()
        if qualname in own.escaped:
            return None
        sites = list(own.sites.get(qualname, []))
        if self.index.importers(self.info.name):  # `from .ops import gather` then `gather(...)`
            for _, finder, _ in self._importers_calling(self._importer_names(qualname)):
                if finder is None or qualname in finder.escaped:
                    return None
                sites += [(call, None) for call, _ in finder.sites.get(qualname, [])]
        if not sites or param not in {p.name.value for p in (*node.params.posonly_params, *node.params.params)}:
            return None
        found: list[tuple[cst.BaseExpression, cst.FunctionDef | None]] = []
        for call, caller in sites:
            items = call.args if isinstance(call, cst.Call) else call.elements
            value = _site_argument(node, call, param)
            if value is None or any(isinstance(a, cst.StarredElement) or getattr(a, "star", "") for a in items):
                return None
            found.append((value, caller))
        return found

    def _module_root_calls(self) -> RootCalls:
        """RootCalls of this module's module-level functions (and their compiled aliases) over
        the whole module, built on first need."""
        if self._root_calls is None:
            names = {name: name for name, _ in self.functions if "." not in name}
            names.update({alias: target for alias, target in self.info.compiled_aliases.items() if target in names})
            self._root_calls = RootCalls(names)
            walk(self.module_tree, self._root_calls)
        return self._root_calls

    def forward_varying_params(self, cls_qualname: str, node: cst.FunctionDef) -> frozenset[str]:
        """Parameters of the `forward` of the project class `cls_qualname` (qualified) that a call
        of an instance of it passes a changing Python number (`_varying_params`: `for t in
        range(1000): x = model(x, t)`, where `model = Net()`, `model = torch.compile(Net())` or
        `model = torch.compile(model)`), in the class's module and in up to IMPORTERS_READ_MAX
        modules importing it. Dynamo specializes on the first value and recompiles (BRK502)."""
        if cls_qualname in self._forward_varying:
            return self._forward_varying[cls_qualname]
        self._forward_varying[cls_qualname] = frozenset()
        found: set[str] = set()
        names = self._instance_names(self.info, cls_qualname)
        if names and self.module_tree is not None:
            finder = RootCalls(names)
            walk(self.module_tree, finder)
            found |= _varying_params(node, finder.sites.get(cls_qualname, []), self.module_tree, bound=True)
        for _, finder, other in self._importers_calling(lambda info: self._instance_names(info, cls_qualname)):
            if finder is not None:
                found |= _varying_params(node, finder.sites.get(cls_qualname, []), other.module_tree, bound=True)
        self._forward_varying[cls_qualname] = frozenset(found)
        return self._forward_varying[cls_qualname]

    def _instance_sites(self, cls_qualname: str, node: cst.FunctionDef, method: str | None = None) -> list | None:
        """`_root_sites` of the calls of the instances of the module class `cls_qualname` that
        its module and the modules importing it bind (`_instance_names`: `loss = torch.compile(
        Loss())`, then `loss(pred, target, valid)`), which run its `forward` (`node`), or, with
        `method`, of their attribute `method` that holds the compiled method `node` (`trainer =
        Trainer(...)`, then `trainer.step(x, y, mask)`). None when
        no module binds one, an instance is used other than by a call or an attribute read
        (passed to a function, `model.forward`), a call is not seen, or the class is built
        anywhere else (an instance whose calls are out of sight)."""
        if self.module_tree is None:
            return None
        finders = self._module_finders(lambda i: self._instance_names(i, cls_qualname), instances=True, method=method)
        if not finders:
            return None
        bound = 0
        for visitor, finder in finders:
            built = self._bound_in(visitor.info)
            bound += sum(1 for n in finder.names if self._builds(built.get(n), cls_qualname))
        if self.index.instances_bound(cls_qualname) != bound:
            return None  # an instance in a module that does not import the class's (a re-export)
        return self._collect_sites(finders, cls_qualname, node)

    def _bound_in(self, info: ModuleInfo) -> dict[str, str]:
        """index.bound_classes of `info`, once per module for this file's check (the index does
        not change while a file is checked; every class's instance sites ask it again)."""
        found = self._bound_classes.get(info.name)
        if found is None:
            found = self._bound_classes[info.name] = bound_classes(info)
        return found

    def _builds(self, built: str | None, cls_qualname: str) -> bool:
        """Whether the callee `built` (qualified, as bound_classes gives it) is the project class
        `cls_qualname`, as ProjectIndex.instances_bound counts it."""
        hit = self.index.lookup_class(built) if built else None
        return hit is not None and hit[1].qualname == cls_qualname

    def _bound_method_sites(self, cls_qualname: str, method: str, qualname: str,
                            node: cst.FunctionDef) -> list | None:
        """`_root_sites` of the calls of the names this module and the modules importing it
        compile from `method` of an instance of the class `cls_qualname` (`_bound_method_aliases`).
        None when no module has such a name; [] when one of their calls is not seen (a module
        not read, the name used other than by a call)."""
        finders = self._module_finders(
            lambda info: dict.fromkeys(self._bound_method_aliases(info, cls_qualname, method), qualname))
        if finders is None:
            return []
        if not finders:
            return None
        found = self._collect_sites(finders, qualname, node)
        return [] if found is None else found

    def _bound_method_aliases(self, info: ModuleInfo, cls_qualname: str, method: str) -> list[str]:
        """Names module `info` compiles from `method` of an instance of the class `cls_qualname`
        that it binds (`step = torch.compile(sched.step)`, `sched = Scheduler()`, also as locals
        of a module-level def): calling one runs the method with the instance as `self`."""
        instances = self._instance_names(info, cls_qualname)
        return [alias for alias, target in info.compiled_aliases.items()
                if target.rpartition(".")[2] == method and target.rpartition(".")[0] in instances]

    def _instance_names(self, info: ModuleInfo, cls_qualname: str) -> dict[str, str]:
        """Names module `info` binds to an instance of the class `cls_qualname` (`model =
        Net()`, `model = torch.compile(Net())`, `model = torch.compile(model)`), each mapped to
        the class, from the index."""
        names = {var: cls_qualname for var, built in self._bound_in(info).items() if self._builds(built, cls_qualname)}
        for alias, target in info.compiled_aliases.items():
            if target in names or (target.endswith("()") and (
                    hit := self.index.lookup_class(info.qualify(target[:-2]))) is not None
                    and hit[1].qualname == cls_qualname):
                names[alias] = cls_qualname
        return names

    def root_varying_params(self, qualname: str, node: cst.FunctionDef | None = None) -> frozenset[str]:
        """Parameters of a compiled module-level function that its calls in its own module or in
        the modules importing it (`_imported_root_sites`) pass a Python number that changes from
        call to call (`_varying_params`, per module): a loop counter
        (`for step in range(n): train_step(x, step)`, `step += 1`) or different literals. Dynamo
        specializes on the first value and recompiles (BRK502)."""
        self.root_call_kinds(qualname, node)
        return self._root_varying.get(qualname, frozenset())

    def root_fixed_params(self, qualname: str, node: cst.FunctionDef | None = None) -> frozenset[str]:
        """Parameters of a compiled module-level function, imported by no other module, that each
        of its calls (all seen) leaves to its number default or passes the same number literal
        (`_fixed_params`): one value, no recompile (no BRK502 for `temperature=1.0` never passed)."""
        self.root_call_kinds(qualname, node)
        return self._root_fixed.get(qualname, frozenset())

    def _imported_root_sites(self, qualname: str, node: cst.FunctionDef) -> list | None:
        """`_root_sites` of the calls that the scanned modules importing this one make of its
        module-level function `qualname` (`from .engine import train_step` then `train_step(m,
        batch, step)`, `engine.train_step(...)`, or through a compiled alias), each module read
        through ProjectCallers; None when one of them cannot be read, uses the function other than
        by calling it, or calls it where ArgKinds cannot see, and when more than
        IMPORTERS_READ_MAX modules import it (each is parsed: the convention holds there)."""
        if (self.project_callers or self.peer_files()) is None:
            return None
        found: list = []
        for _, finder, other in self._importers_calling(self._importer_names(qualname)):
            sites = self._seen_sites(other, finder, qualname, node) if finder is not None else None
            if sites is None:
                return None
            found += sites
            self._imported_varying.setdefault(qualname, set()).update(
                _varying_params(node, finder.sites.get(qualname, []), other.module_tree))
        return found

    def _importer_names(self, qualname: str) -> Callable[[ModuleInfo], dict[str, str]]:
        """For an importing module's index entry: the names it calls this module's function
        `qualname` by (`step`, `engine.step`, a compiled alias of either) -> `qualname`; {} when
        it imports other names of this module."""
        target = f"{self.info.name}.{qualname}"

        def names_in(info: ModuleInfo) -> dict[str, str]:
            names = {f"{local}{target[len(imported):]}": qualname for local, imported in info.imports.items()
                     if target == imported or target.startswith(imported + ".")}
            names.update({alias: qualname for alias, compiled in info.compiled_aliases.items() if compiled in names})
            return names

        return names_in

    def _module_finders(self, names_in: Callable[[ModuleInfo], dict[str, str]],
                        **finder_args) -> list[tuple[CallSiteInference, RootCalls]] | None:
        """`(visitor, RootCalls(names, **finder_args) walked over its module)` for this module and
        each module importing it where `names_in(info)` names something to call; None when one
        of those importers cannot be read (its calls are out of sight)."""
        found = []
        if own := names_in(self.info):
            finder = RootCalls(own, **finder_args)
            walk(self.module_tree, finder)
            found.append((self, finder))
        for _, finder, other in self._importers_calling(names_in, **finder_args):
            if finder is None:
                return None
            found.append((other, finder))
        return found

    def _collect_sites(self, finders: list[tuple[CallSiteInference, RootCalls]], key: str,
                       node: cst.FunctionDef) -> list | None:
        """The `_seen_sites` of `key` over every (visitor, RootCalls) of `finders`, joined; None
        when one is not seen."""
        found: list = []
        for visitor, finder in finders:
            sites = self._seen_sites(visitor, finder, key, node)
            if sites is None:
                return None
            found += sites
        return found

    @staticmethod
    def _seen_sites(visitor: CallSiteInference, finder: RootCalls, key: str, node: cst.FunctionDef) -> list | None:
        """`visitor._root_sites` of the calls `finder` found of `key` (`node` the called def); None
        when `key` is used other than by a call there, or a call is not seen."""
        return None if key in finder.escaped else visitor._root_sites(node, finder.sites.get(key, []))

    def _importers_calling(self, names_in: Callable[[ModuleInfo], dict[str, str]], **finder_args):
        """For each scanned module importing this one (sorted) for which `names_in(info)` (from
        the index alone) names something to call: `(info, RootCalls(names, **finder_args) over
        the module, its visitor)`. The RootCalls and visitor are None for a module the index lacks
        or that cannot be read, and past IMPORTERS_READ_MAX such modules (each is parsed)."""
        peers = self.project_callers or self.peer_files()
        read = 0
        for module in sorted(self.index.importers(self.info.name)):
            info = self.index.modules.get(module)
            names = names_in(info) if info is not None else {}
            if info is not None and not names:
                continue
            if info is not None:
                read += 1
            other = peers.visitor(str(info.path)) if info is not None and peers is not None \
                and read <= IMPORTERS_READ_MAX else None
            if other is None or other.module_tree is None:
                yield info, None, None
                continue
            finder = RootCalls(names, **finder_args)
            walk(other.module_tree, finder)
            yield info, finder, other

    def _nested_root_calls(self, qualname: str, node: cst.FunctionDef) -> RootCalls | None:
        """RootCalls over the body of the def that `node` (qualified `qualname`) is nested in,
        with the local names compiled from it (`opt_fn = torch.compile(fn, ...)`)."""
        outer_name = qualname.rpartition(".")[0]
        outer = self.functions.get((outer_name, 0))
        if outer is None or (outer_name, 1) in self.functions:
            return None
        names = {node.name.value: qualname}
        for assign in iter_nodes(outer.body, cst.Assign):
            compiled = compiled_name(assign.value)
            if compiled is not None and compiled.value == node.name.value:
                names.update({t.target.value: qualname for t in assign.targets if isinstance(t.target, cst.Name)})
        finder = RootCalls(names, enclosing=outer)
        for stmt in outer.body.body:
            walk(stmt, finder)
        return finder

    def _root_sites(self, node: cst.FunctionDef, calls: list) -> list[tuple[cst.Call, list[tuple[str | None, T]]]] | None:
        """The argument kinds of each call RootCalls found (`(call, caller def or None)`); None
        when one is not seen (module level: `*args`; in a def: a call ArgKinds does not record)."""
        keys = {id(fn): key for key, fn in self.functions.items()}
        module_env: TypeEnv | None = None
        module_args: dict[int, list[tuple[str | None, T]] | None] = {}
        found: list[tuple[cst.Call, list[tuple[str | None, T]]]] = []
        for call, caller in calls:
            if caller is node:
                continue  # recursion: its arguments come from the other calls
            if caller is None:
                if not isinstance(call, cst.Call) or any(a.star for a in call.args):
                    return None
                if module_env is None:
                    module_env = self._class_env(None)
                    module_env.names.update(dict.fromkeys(module_numbers(self.module_tree), T.SCALAR))
                    module_args = self._module_arg_kinds(module_env, {id(c) for c, where in calls if where is None})
                args = module_args.get(id(call)) or [
                    (a.keyword.value if a.keyword is not None else None, module_env.kind(a.value)) for a in call.args]
            else:
                key = keys.get(id(caller))
                if key is None or key in self._walking:
                    return None
                if id(call) not in self._arg_kinds:
                    self._walk_caller(key, {id(call)})
                args = self._arg_kinds.get(id(call))
                if args is None:
                    return None
            found.append((call, args))
        return found

    def _module_arg_kinds(self, env: TypeEnv, wanted: set[int]) -> dict[int, list[tuple[str | None, T]] | None]:
        """The argument kinds of the module-level calls `wanted` (ids), binding the module's
        statements in order as a script runs them (`masks = {k: torch.zeros(n, dtype=torch.bool)
        ...}`, then `trainer.step(x, masks["train"])`), in a scope of its own over `env`; the
        bodies of defs and classes are not walked (their calls have a caller)."""
        out: dict[int, list[tuple[str | None, T]] | None] = {}
        if self.module_tree is None or not wanted:
            return out
        binder = ArgKinds(TypeEnv(self.info, parent=env), wanted, out)
        for stmt in self.module_tree.body:
            if not isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                walk(stmt, binder)
        return out

    def bool_at_call_sites(self, name: str) -> bool:
        """Whether `name` is a parameter of the region function being walked, annotated as a tensor
        (so `_param_kinds` did not look at its calls) and never rebound in the body, that every
        call site the inference sees (`_inferred_params`) passes a boolean tensor: a comparison
        (`masked(edge_index, edge_type == i)`), a mask. Asked only where it decides a finding
        (indexing by the parameter): the call-site walk is not paid for every annotated parameter."""
        env, region = self.env, self.region
        fn = env.function if env is not None else None
        if region is None or fn is None or fn.name.value != region.function.name or fn.decorators:
            return False
        params = {p.name.value: p for p in all_params(fn)}
        if name not in params or params[name].annotation is None or env.names.get(name) is not T.TENSOR:
            return False
        if any(isinstance(n, cst.Name) and n.value == name for n in store_targets(fn)):
            return False
        is_root = len(region.chain) <= 1 or region.function.name == "forward"
        return self._inferred_params(region.function.qualname, project=not is_root).get(name) is T.BOOL_TENSOR

    def _alias_annotation(self, param: cst.Param) -> cst.BaseExpression | None:
        """The type a parameter's annotation names when it is a project type alias
        (`edge_weight: OptTensor` with `OptTensor = Optional[Tensor]` in the project's typing
        module), parsed; None for any other annotation."""
        ann = param.annotation.annotation if param.annotation is not None else None
        name = dotted_name(ann) if isinstance(ann, (cst.Name, cst.Attribute)) else None
        if not name or annotation_kind(ann) is not None:
            return None
        text = self.index.lookup_alias(self.info.qualify(name))
        if not text:
            return None
        if text not in self._annotations_parsed:
            try:
                self._annotations_parsed[text] = cst.parse_expression(text)
            except cst.ParserSyntaxError:
                self._annotations_parsed[text] = None
        return self._annotations_parsed[text]

    # call-site parameter inference ----------------------------------------------------------
    def _call_sites(self) -> CallSites:
        """This module's private call sites (built once, on first need)."""
        if self._sites is None:
            names = {name for name in self.info.functions if _is_private(name)}
            methods = {name for cls in self.info.classes.values() for name in cls.methods if _is_private(name)}
            self._sites = CallSites(self.functions, self.source, names, methods)
        return self._sites

    def _inferred_params(self, qualname: str, project: bool = True) -> dict[str, T]:
        """Kinds of a private function's parameters, joined over every call in this module.

        A private function (`_name`, not dunder) that is defined once, undecorated (or a static or
        class method), never used other than by a call (CallSites.escaped) and called at least once
        here: each parameter every call passes, positionally or by keyword, gets the join of the
        argument kinds (`_join_arguments`: one tensor kind, or Python values and shapes; a mix is
        unknown). A call that unpacks `*args`/`**kwargs`, or that lies where ArgKinds cannot see it,
        leaves every parameter unknown. Memoized; {} while being inferred (recursion). The region
        walk treats these parameters, like every parameter, as inputs of the graph (`_computes`).

        Any other function inside a compile region (public, or private and called from other
        files) takes the join over its traced call sites in the whole project
        (`_infer_from_project`), unless `project` is False (a root of a region: `forward` or a
        compiled function, whose parameters follow the root conventions of binding.param_kind).
        """
        if qualname in self._inferred:
            return self._inferred[qualname] or {}
        self._inferred[qualname] = None
        found = self._infer_from_sites(qualname) or (self._infer_from_project(qualname) if project else {})
        self._inferred[qualname] = found
        return found

    def _infer_from_sites(self, qualname: str) -> dict[str, T]:
        node = self.functions.get((qualname, 0))
        if node is None or (qualname, 1) in self.functions or not _is_private(node.name.value):
            return {}
        decorators = _decorator_names(node)
        if not self._transparent(decorators):
            return {}
        name = node.name.value
        sites = self._call_sites()
        calls = sites.sites.get("." + name if "." in qualname else name)
        if not calls or name in sites.escaped:
            return {}
        found: list[tuple[cst.Call, list[tuple[str | None, T]]]] = []
        for call, caller in calls:
            args = self._site_arguments(call, caller)
            if args is None:
                return {}
            found.append((call, args))
        return self._join_sites(node, qualname, decorators, found)

    def _transparent(self, decorators: set[str | None]) -> bool:
        """Whether a def with these decorators (dotted, as written) is called with its callers'
        arguments: none, `staticmethod`/`classmethod`, or a grad or autocast mode
        (GRAD_MODE_DECORATORS: `@torch.no_grad()`)."""
        return all(d in _TRANSPARENT_DECORATORS or (d is not None and self.info.qualify(d) in GRAD_MODE_DECORATORS)
                   for d in decorators)

    def _join_sites(self, node: cst.FunctionDef, qualname: str, decorators: set[str | None],
                    sites: list[tuple[cst.Call, list[tuple[str | None, T]]]],
                    method: bool | None = None, numbers_win: bool = False) -> dict[str, T]:
        """Parameter kinds of `node` joined over its call sites `(call, argument kinds)`: a parameter
        every call passes (positionally, after the bound `self`/`cls`, or by keyword) takes
        `_join_arguments` of what they pass; the others stay unknown. `numbers_win` (a compiled
        root's calls): a parameter some call passes a Python number and the others something
        unknown (`fps(xyz, 8)` and `fps(xyz, self.npoint)`) is a Python number, not left to the
        root convention that takes it for a tensor."""
        is_method = "." in qualname if method is None else method  # a nested def is not a method
        positional = [*node.params.posonly_params, *node.params.params]
        by_keyword = {p.name.value for p in [*node.params.params, *node.params.kwonly_params]}
        passed: dict[str, list[T]] = {p.name.value: [] for p in all_params(node)}
        for call, args in sites:
            skip = 0
            if is_method and "staticmethod" not in decorators:
                recv = call.func.value if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) else None
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
        if numbers_win:
            for param, kinds in passed.items():
                known = [k for k in kinds if k is not T.UNKNOWN]
                if known and len(known) < len(kinds) and set(known) <= {T.SCALAR, T.SHAPE}:
                    passed[param] = known + [known[0]] * (len(kinds) - len(known))
        joined = {param: _join_arguments(kinds) for param, kinds in passed.items() if len(kinds) == len(sites)}
        return {param: kind for param, kind in joined.items() if kind is not T.UNKNOWN}

    def _site_arguments(self, call: cst.Call, caller: tuple[str, int]) -> list[tuple[str | None, T]] | None:
        """The argument kinds of one call site (ArgKinds), walking its caller once; None if unknown
        (a call ArgKinds does not see, or one in a caller being walked: recursion)."""
        if caller not in self._walked_callers:
            self._walked_callers.add(caller)
            self._walk_caller(caller)
        return self._arg_kinds.get(id(call))

    def _caller_node(self, key: tuple[str, int]) -> cst.FunctionDef | None:
        """The `def` of this module `key` names: module- or class-level, or a compiled def nested
        in one (`main.step`, syntax.nested_function), which calls helpers like any region root."""
        node = self.functions.get(key)
        if node is None and "." in key[0]:
            node = nested_function(self.functions, *key)
        return node

    def _calls_to(self, caller: tuple[str, int], target: RegionKey) -> list[tuple[cst.Call, list]] | None:
        """The calls in `caller` (a `def` of this module) that reach the function `target`, with
        their argument kinds; None when one is not seen (in a lambda or class body, `*args`, a
        caller being walked: recursion) or none is found (the index and the tree disagree)."""
        node = self._caller_node(caller)
        if node is None or caller in self._walking:
            return None
        head = caller[0].rpartition(".")[0]
        cls = self.info.classes.get(head) if head else None
        info = self._function_info(*caller)
        loops = info.loop_attrs if info is not None and cls is not None else {}
        instances = info.local_classes if info is not None else {}
        calls = [c for c in iter_nodes(node.body, cst.Call) if self._reaches(c, cls, target, loops, instances)]
        missing = {id(c) for c in calls if id(c) not in self._arg_kinds}
        if missing:
            self._walk_caller(caller, missing)
        found = [(c, self._arg_kinds.get(id(c))) for c in calls]
        if not found or any(args is None for _, args in found):
            return None
        return found  # type: ignore[return-value]

    def _calls_submodule(self, cls: ClassInfo, attr: str, target: RegionKey) -> bool:
        """Whether `self.<attr>(...)` in a method of `cls` runs `target` as the `__call__` or
        `forward` of a project class `__init__` builds into `self.<attr>` (`self.pos_embed =
        QwenEmbedRope(...)`, then `self.pos_embed(shapes, max_txt_seq_len=n)`)."""
        if target[1].rsplit(".", 1)[-1] not in ("__call__", "forward"):
            return False
        _, _, subs = self.index.class_attr_kinds(cls.qualname)
        for qualname in subs.get(attr, ()):
            found = self.index.instance_call(qualname)
            if found is not None and (str(found[0].path), found[2].qualname) == target[:2]:
                return True
        return False

    def _calls_bound(self, cls: ClassInfo, attr: str, target: RegionKey) -> bool:
        """Whether `self.<attr>(...)` in a method of `cls` calls `target` through a function
        bound to the attribute (ProjectIndex.callable_attr): one named in the class
        (`self.act = gelu_fast`) or passed to `__init__` by the project's calls of the class
        (`Net(hinge)` for `self.loss_fn = loss_fn`, ProjectIndex.init_bound_functions)."""
        names: list[str] = []
        for bound in self.index.callable_attr(cls.qualname, attr):
            if bound.startswith("arg:__init__:"):
                names += self.index.init_bound_functions(cls, bound)
            elif bound.startswith("reg:"):
                names += self.index.registry(bound[4:])
            elif not bound.startswith(("arg:", "self.")):
                names.append(bound)
        for name in names:
            found = self.index.lookup_function(name)
            if found is not None and (str(found[0].path), found[1].qualname) == target[:2]:
                return True
        return False

    def _reaches(self, call: cst.Call, cls: ClassInfo | None, target: RegionKey,
                 loops: dict[str, str] | None = None, instances: dict[str, str] | None = None) -> bool:
        """Whether `call` (made in a method of `cls`, or a function) calls `target`: `f(x)`,
        `mod.f(x)` through this module's imports, `self.m(x)` through `cls` and its bases, or
        `self.sub.m(x)` / `layer.m(x)` (`loops`: loop variables over `self.<attr>`, FunctionInfo.loop_attrs)
        through the submodules `__init__` builds (RegionFinder.submodule_methods),
        `model.m(x)` on a module-level instance (ProjectIndex.instance_method), or `model(x)` on
        an instance (`model = Net()`) for its `__call__` or `forward` (ProjectIndex.instance_call),
        or `sched.m(x)` on a local instance (`instances`: FunctionInfo.local_classes)."""
        func = call.func
        if isinstance(func, cst.Subscript):  # `LOSSES[key](...)` (ModuleInfo.registries)
            table = dotted_name(func.value)
            return bool(table) and not table.startswith("self.") and self._in_registry(self.info.qualify(table), target)
        if isinstance(func, cst.Name) and func.value in self.info.registries:  # `criterion = LOSSES[k]`
            return self._in_registry(self.info.qualify(func.value), target)
        last = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else None
        if isinstance(func, cst.Name) and target[1].rsplit(".", 1)[-1] in ("__call__", "forward"):
            built = self.info.module_vars.get(func.value) or self.info.var_classes.get(func.value)
            if built and self.index.lookup_class(built):  # `clamp(x)`, `clamp = Clamp(0.5)`: its `__call__`
                found = self.index.instance_call(built)
                return found is not None and (str(found[0].path), found[2].qualname) == target[:2]
        if cls is not None and isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) \
                and func.value.value == "self" and last != target[1].rsplit(".", 1)[-1]:
            return self._calls_bound(cls, last, target) or self._calls_submodule(cls, last, target)
        if last is None or last != target[1].rsplit(".", 1)[-1]:
            return False
        if instances and isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) \
                and func.value.value in instances:
            found = self.index.method(self.info.qualify(instances[func.value.value]), last)
            return found is not None and (str(found[0].path), found[2].qualname) == target[:2]
        attr = _submodule_receiver(func.value, loops or {}) if isinstance(func, cst.Attribute) else None
        if attr is not None and cls is not None:
            _, _, subs = self.index.class_attr_kinds(cls.qualname)
            found = (self.index.method(q, last) for q in subs.get(attr, ()))
            return any(f is not None and (str(f[0].path), f[2].qualname) == target[:2] for f in found)
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            if cls is None:
                return False
            found = self.index.method(cls.qualname, last)
            if found is not None and (str(found[0].path), found[2].qualname) == target[:2]:
                return True
            # An override in a subclass: `self` may be an instance of it (RegionFinder's dispatch).
            owner = self._class_at(target[0], target[1].rpartition(".")[0])
            return owner is not None and self._inherits(owner, cls.qualname)
        name = dotted_name(func)
        hit = self.index.lookup_function(self.info.qualify(name)) if name else None
        if hit is None and name and "." in name:  # `model.embed(x)` on a module-level instance
            method = self.index.instance_method(self.info.qualify(name))
            return method is not None and (str(method[0].path), method[2].qualname, method[2].occurrence) == target
        return hit is not None and (str(hit[0].path), hit[1].qualname, hit[1].occurrence) == target

    def _in_registry(self, qualname: str, target: RegionKey) -> bool:
        """Whether the registry `qualname` (ProjectIndex.registry) holds the function `target`."""
        return any((str(mod.path), fn.qualname, fn.occurrence) == target
                   for mod, fn in self.index.registry_functions(qualname))

    def _class_at(self, path: str, name: str) -> ClassInfo | None:
        """The class `name` defined in the scanned file `path`, if any."""
        if not name:
            return None
        if self._by_path is None:  # built on first need: most files never ask
            self._by_path = {str(module.path): module for module in self.index.modules.values()}
        module = self._by_path.get(path)
        return module.classes.get(name) if module is not None else None

    def _inherits(self, cls: ClassInfo, base: str, depth: int = 0) -> bool:
        """Whether project class `cls` derives from the class qualified `base` (through project classes)."""
        if depth > 20:
            return False
        for name in cls.bases:
            if name == base:
                return True
            found = self.index.lookup_class(name)
            if found is not None and (found[1].qualname == base or self._inherits(found[1], base, depth + 1)):
                return True
        return False

    def _infer_from_project(self, qualname: str) -> dict[str, T]:
        """Parameter kinds of a function inside a compile region, joined over its traced call sites
        in the whole project (ProjectCallers: calls in region functions that reach it, this file's
        and other files'). Dynamo inlines each such call with the values it passes, so a tensor
        passed at every one of them is a tensor in the body. Unknown (nothing inferred) when the
        function is redefined or decorated (other than `staticmethod`/`classmethod`), when it has
        no traced call site (RegionFinder.traced_callers leaves out functions called from many
        files), and when any
        call site is not seen or passes `*args`/`**kwargs`. Calls the index cannot see (the
        function passed as a value, called by code outside the project) are not joined: a
        prediction from the visible traced calls still holds for them."""
        node = self.functions.get((qualname, 0))
        # A caller file's visitor joins its own callers too, PARAM_READ_DEPTH files deep.
        peers = self.project_callers or self.peer_files()
        nested = self.project_callers is None
        if peers is None or node is None or (qualname, 1) in self.functions \
                or (nested and peers.param_depth >= PARAM_READ_DEPTH):
            return {}
        decorators = _decorator_names(node)
        decorators = {d for d in decorators if not (d and self.index.is_registrar(self.info.qualify(d)))}
        if not self._transparent(decorators):
            return {}
        target = (str(self.info.path), qualname, 0)
        callers = peers.callers.get(target)
        if not callers:
            return {}
        found: list[tuple[cst.Call, list[tuple[str | None, T]]]] = []
        peers.param_depth += nested
        try:
            for path, caller, occurrence in callers:
                if path == target[0]:
                    sites = self._calls_to((caller, occurrence), target)
                else:
                    other = peers.visitor(path)
                    sites = other._calls_to((caller, occurrence), target) if other is not None else None
                if sites is None:
                    return {}
                found += sites
        finally:
            peers.param_depth -= nested
        return self._join_sites(node, qualname, decorators, found)

    def _walk_caller(self, key: tuple[str, int], wanted: set[int] | None = None) -> None:
        """Record the argument kinds of the private calls (or of the calls `wanted`) in one module-
        or class-level `def`, with the same parameter kinds the region walk gives it (its own
        call sites included)."""
        node = self._caller_node(key)
        qualname = key[0]
        head, _, _ = qualname.rpartition(".")
        cls = self.info.classes.get(head) if head else None
        region = self.regions.get(id(node))
        is_root = region is not None and (len(region.chain) <= 1 or node.name.value == "forward")
        env = self._class_env(cls, self._function_info(qualname, key[1]))
        kinds = self._param_kinds(node, qualname if key[1] == 0 else None, cls is not None, is_root)
        env.names.update(kinds)
        env.function = node
        env.declared = _declared_tensors(node, kinds)
        if wanted is None:
            wanted = self._call_sites().by_caller.get(key, set())
        self._dispatch.append(cls)
        self._walking.add(key)
        try:
            walk(node.body, ArgKinds(env, wanted, self._arg_kinds))
        finally:
            self._dispatch.pop()
            self._walking.discard(key)
