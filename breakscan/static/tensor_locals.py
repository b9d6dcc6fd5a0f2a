"""Which locals of a def hold a tensor, as Dynamo's `has_tensor_in_frame` sees a frame's values.

When a skipped frame runs eagerly, each comprehension it runs is a frame of its own (Python
<= 3.11) whose locals are its iterator `.0` and its free variables: the enclosing def's locals
it reads. Dynamo traces that frame when one of them is a tensor or an `nn.Module`, or a list,
tuple, dict or namedtuple holding one (torch/_dynamo/convert_frame.py, `has_tensor_in_frame`,
2.13); then it cannot step the list iterator it was given (GB4347).

A flow-insensitive, precision-first pass over one def's ast: a local holds tensors when an
assignment gives it a value derived from a tensor source (a `torch.*` call, a parameter annotated
as a tensor or a sequence of them, an unannotated parameter of `forward`), through arithmetic,
indexing, tensor methods, displays, loops, `.append`/`.extend`, and calls that take such a value
as an argument (a helper fed tensors is taken to return them). Shapes, dtypes, lengths and other
Python values read from a tensor are not tensors; anything unknown stays unknown.
"""

from __future__ import annotations

import ast

from breakscan.static.index import ModuleInfo, ast_dotted, walk_nodes

# Values read from a tensor that are not tensors (tensors.NON_TENSOR_METHODS / NON_TENSOR_ATTRS hold
# the same facts for the libcst pass; kept here as the subset an ast-level taint needs).
_SCALAR_METHODS = {"size", "dim", "ndimension", "numel", "stride", "nelement", "item", "tolist",
                   "data_ptr", "is_contiguous", "element_size", "get_device", "is_floating_point",
                   "is_complex", "numpy", "type", "keys", "count", "index", "startswith", "endswith",
                   "format", "join", "split_string"}
_SCALAR_ATTRS = {"shape", "ndim", "dtype", "device", "is_cuda", "requires_grad", "layout", "is_leaf",
                 "names", "itemsize", "nbytes", "training"}
# Builtins and torch functions whose result is a Python value whatever they are given.
_SCALAR_CALLS = {"len", "isinstance", "issubclass", "hasattr", "getattr", "callable", "id", "type", "int",
                 "float", "bool", "str", "repr", "range", "print", "hash", "format", "any", "all",
                 "torch.is_tensor", "torch.is_floating_point", "torch.is_complex", "torch.numel",
                 "torch.get_default_dtype", "torch.is_grad_enabled", "torch.finfo", "torch.iinfo",
                 "torch.device", "torch.Size", "torch.equal", "torch.is_inference_mode_enabled",
                 "torch.compiler.is_compiling", "torch.jit.is_scripting", "torch.jit.is_tracing"}
_TENSOR_ANNOTATIONS = ("Tensor", "Module", "Parameter")
_COMPARE_OPS = (ast.Is, ast.IsNot, ast.In, ast.NotIn)


def tensor_locals(info: ModuleInfo, fn: ast.FunctionDef | ast.AsyncFunctionDef, own: list[ast.AST]) -> set[str]:
    """Names local to `fn` (its parameters and the names its own code assigns; `own` are its
    nodes without nested defs, index._own_nodes) that may hold a tensor when the def runs, by
    the rules in the module docstring. `info` qualifies names (`torch` imported under an alias)."""
    args = fn.args
    params = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    held: set[str] = set()
    for p in params:
        if _tensor_annotation(p.annotation) or (fn.name == "forward" and p.annotation is None
                                                and p.arg not in ("self", "cls")):
            held.add(p.arg)
    for star in (args.vararg, args.kwarg):
        if star is not None and (_tensor_annotation(star.annotation) or fn.name == "forward"):
            held.add(star.arg)
    steps = [n for n in own if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For,
                                              ast.AsyncFor, ast.NamedExpr, ast.Call, ast.withitem))]
    changed = True
    while changed:  # to a fixpoint: an assignment may read a name a later statement taints
        changed = False
        for node in steps:
            for name in _tainted_targets(info, node, held):
                if name not in held:
                    held.add(name)
                    changed = True
    return held


def _tainted_targets(info: ModuleInfo, node: ast.AST, held: set[str]) -> list[str]:
    """The names `node` binds to a tensor-holding value (see tensor_locals)."""
    if isinstance(node, ast.Assign):
        return _names(node.targets) if holds_tensor(info, node.value, held) else []
    if isinstance(node, ast.AnnAssign):
        if _tensor_annotation(node.annotation) or (node.value is not None and holds_tensor(info, node.value, held)):
            return _names([node.target])
        return []
    if isinstance(node, ast.AugAssign):
        return _names([node.target]) if holds_tensor(info, node.value, held) else []
    if isinstance(node, ast.NamedExpr):
        return _names([node.target]) if holds_tensor(info, node.value, held) else []
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return _names([node.target]) if holds_tensor(info, node.iter, held) else []
    if isinstance(node, ast.withitem):
        if node.optional_vars is not None and holds_tensor(info, node.context_expr, held):
            return _names([node.optional_vars])
        return []
    # `out.append(t)`, `out.extend(ts)`, `d.update(...)`, `out.insert(0, t)`: the container holds it
    func = node.func  # type: ignore[attr-defined]
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
            and func.attr in ("append", "extend", "insert", "update", "add", "setdefault") \
            and any(holds_tensor(info, a, held) for a in node.args):  # type: ignore[attr-defined]
        return [func.value.id]
    return []


def _names(targets: list[ast.AST]) -> list[str]:
    """Names an assignment to `targets` binds; `d[k] = t` counts for `d` (the container holds it)."""
    out: list[str] = []
    todo = list(targets)
    while todo:
        target = todo.pop()
        if isinstance(target, ast.Name):
            out.append(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            todo.extend(target.elts)
        elif isinstance(target, ast.Starred):
            todo.append(target.value)
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            out.append(target.value.id)
    return out


def holds_tensor(info: ModuleInfo, node: ast.AST | None, held: set[str]) -> bool:
    """Whether the value of `node` may be, or hold, a tensor, given the names `held` that do."""
    if node is None:
        return False
    kind = type(node)
    if kind is ast.Name:
        return node.id in held  # type: ignore[attr-defined]
    if kind is ast.Starred:
        return holds_tensor(info, node.value, held)  # type: ignore[attr-defined]
    if kind is ast.Subscript:
        return holds_tensor(info, node.value, held)  # type: ignore[attr-defined]
    if kind is ast.Attribute:
        return node.attr not in _SCALAR_ATTRS and holds_tensor(info, node.value, held)  # type: ignore[attr-defined]
    if kind is ast.BinOp:
        return holds_tensor(info, node.left, held) or holds_tensor(info, node.right, held)  # type: ignore[attr-defined]
    if kind is ast.UnaryOp:
        return not isinstance(node.op, ast.Not) and holds_tensor(info, node.operand, held)  # type: ignore[attr-defined]
    if kind is ast.BoolOp:
        return any(holds_tensor(info, v, held) for v in node.values)  # type: ignore[attr-defined]
    if kind is ast.IfExp:
        return holds_tensor(info, node.body, held) or holds_tensor(info, node.orelse, held)  # type: ignore[attr-defined]
    if kind is ast.Compare:
        return not any(isinstance(op, _COMPARE_OPS) for op in node.ops) and any(  # type: ignore[attr-defined]
            holds_tensor(info, v, held) for v in (node.left, *node.comparators))  # type: ignore[attr-defined]
    if kind in (ast.List, ast.Tuple, ast.Set):
        return any(holds_tensor(info, e, held) for e in node.elts)  # type: ignore[attr-defined]
    if kind is ast.Dict:
        return any(holds_tensor(info, v, held) for v in node.values)  # type: ignore[attr-defined]
    if kind in (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp):
        return _comprehension_holds(info, node, held)
    if kind is ast.Call:
        return _call_holds(info, node, held)  # type: ignore[arg-type]
    return False


def _comprehension_holds(info: ModuleInfo, node: ast.AST, held: set[str]) -> bool:
    inner = set(held)
    for gen in node.generators:  # type: ignore[attr-defined]
        if holds_tensor(info, gen.iter, inner):
            inner.update(_names([gen.target]))
    result = node.value if isinstance(node, ast.DictComp) else node.elt  # type: ignore[attr-defined]
    return holds_tensor(info, result, inner)


def _call_holds(info: ModuleInfo, node: ast.Call, held: set[str]) -> bool:
    func = node.func
    name = ast_dotted(func) or ""
    qual = info.qualify(name) if name else ""
    if qual in _SCALAR_CALLS or name in _SCALAR_CALLS:
        return False
    if qual.startswith("torch.") and not qual.startswith(("torch.is_", "torch.get_", "torch._C")):
        return True
    if isinstance(func, ast.Attribute):
        if func.attr in _SCALAR_METHODS or func.attr.startswith("is_"):
            return False
        if holds_tensor(info, func.value, held):  # `x.view(...)`, `outs.pop()`, `d.values()`
            return True
    # A helper given tensors is taken to return them (`self.prep(*args)`, `torch.cat` wrappers).
    return any(holds_tensor(info, a, held) for a in node.args) or \
        any(holds_tensor(info, k.value, held) for k in node.keywords if k.arg is not None)


def _tensor_annotation(ann: ast.AST | None) -> bool:
    """`Tensor`, `torch.Tensor`, `list[Tensor]`, `Optional[Tensor]`, `nn.Module`... (any mention)."""
    if ann is None:
        return False
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        return any(t in ann.value for t in _TENSOR_ANNOTATIONS)
    return any(isinstance(n, ast.Name) and n.id in _TENSOR_ANNOTATIONS
               or isinstance(n, ast.Attribute) and n.attr in _TENSOR_ANNOTATIONS for n in walk_nodes(ann))


def free_names(comp: ast.AST) -> set[str]:
    """Names a comprehension's own frame reads that it does not bind itself (its targets, and
    the targets of comprehensions nested in it): the enclosing scopes' names it closes over, and
    globals. Its first iterable is evaluated outside, in the enclosing frame, and does not count."""
    gens = comp.generators  # type: ignore[attr-defined]
    parts: list[ast.AST] = [getattr(comp, k) for k in ("elt", "key", "value") if hasattr(comp, k)]
    parts += [i for g in gens for i in g.ifs] + [g.iter for g in gens[1:]]
    bound = set(_names([g.target for g in gens]))
    read: set[str] = set()
    for part in parts:
        for sub in walk_nodes(part):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
                read.add(sub.id)
            elif isinstance(sub, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                bound.update(_names([g.target for g in sub.generators]))
            elif isinstance(sub, ast.NamedExpr):
                bound.update(_names([sub.target]))
    return read - bound
