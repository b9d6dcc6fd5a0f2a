"""The rewrites, keyed by the name a rule's `[autofix] rewrite` gives.

A rewrite gets the file and the finding, finds the libcst node the finding points at, and
returns the edits (whole lines, see source.py) or None when the code around that node is not
the shape it knows how to rewrite; it never guesses. Each one that needs `torch` uses the
module's own `import torch` alias, or adds `import torch` as a second edit.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from breakscan.findings import Edit, Finding
from breakscan.fix.source import SourceFile
from breakscan.static.syntax import REORDERABLE_PRINT, dotted_name
from breakscan.static.walk import iter_nodes
from breakscan.static.tensors import NON_TENSOR_ATTRS, NON_TENSOR_METHODS, TORCH_NON_TENSOR

RewriteFn = Callable[[SourceFile, Finding], "list[Edit] | None"]
REWRITES: dict[str, RewriteFn] = {}


NEEDS_FINDINGS: set[str] = set()  # rewrites also given every finding of the report


def rewrite(name: str, needs_findings: bool = False) -> Callable[[RewriteFn], RewriteFn]:
    """Register a rewrite under `name` (what rules/*.toml `[autofix] rewrite` names); one that
    `needs_findings` is called with the report's findings as a third argument."""

    def register(fn: RewriteFn) -> RewriteFn:
        REWRITES[name] = fn
        if needs_findings:
            NEEDS_FINDINGS.add(name)
        return fn

    return register


# torch ------------------------------------------------------------------------------------------
def torch_alias(src: SourceFile) -> str | None:
    """The name `import torch [as X]` binds at module level, or None."""
    for stmt in src.module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Import):
                    for alias in small.names:
                        if dotted_name(alias.name) == "torch":
                            return alias.asname.name.value if alias.asname else "torch"
    return None


def with_torch(src: SourceFile, edits: list[Edit]) -> tuple[str, list[Edit]]:
    """The name to call torch by, and `edits` plus an `import torch` edit when there is none."""
    alias = torch_alias(src)
    if alias is not None:
        return alias, edits
    edit = _import_torch_edit(src)
    return "torch", edits + ([edit] if edit else [])


def _imports(stmt: cst.BaseStatement) -> list[cst.BaseSmallStatement]:
    if isinstance(stmt, cst.SimpleStatementLine):
        return [s for s in stmt.body if isinstance(s, (cst.Import, cst.ImportFrom))]
    return []


def _import_torch_edit(src: SourceFile) -> Edit | None:
    """Insert `import torch` just before the first `from torch... import`, else after the first
    run of top-level imports (after the docstring and `from __future__` when there are none)."""
    body, tops = src.module.body, src.tops
    if not tops:
        return None
    line = src.module.default_newline
    for i, stmt in enumerate(body):
        if any(isinstance(s, cst.ImportFrom) and (dotted_name(s.module) or "").split(".")[0] == "torch"
               for s in _imports(stmt)):
            return Edit(tops[i][0], 1, tops[i][0], 1, "import torch" + line)
    at = _after_first_imports(body)
    where = tops[at - 1][1] + 1 if at else tops[0][0]
    return Edit(where, 1, where, 1, "import torch" + line)


# statements -----------------------------------------------------------------------------------------
def _call_statement(src: SourceFile, finding: Finding) -> cst.SimpleStatementLine | None:
    """The statement line the finding's call is alone on, as an expression statement."""
    call = src.node_at(finding, cst.Call)
    expr = src.parent(call) if call is not None else None
    line = src.parent(expr) if isinstance(expr, cst.Expr) else None
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return None
    return line if isinstance(src.parent(line), cst.IndentedBlock) else None


def _under_compiling_guard(src: SourceFile, node: cst.CSTNode) -> bool:
    """Whether an enclosing `if` already tests `is_compiling()` (never guard twice)."""
    parent = src.ancestor(node, cst.If)
    while parent is not None:
        if "is_compiling" in src.module.code_for_node(parent.test):
            return True
        parent = src.ancestor(parent, cst.If)
    return False


@rewrite("guard-compiling")
def guard_compiling(src: SourceFile, finding: Finding) -> list[Edit] | None:
    """`print(...)` → `if not torch.compiler.is_compiling():` + the call, indented.

    Eager code still runs the call; compiled code skips it, so the graph does not break.
    Only a call that is a whole statement of its own line is rewritten.
    """
    line = _call_statement(src, finding)
    if line is None or _under_compiling_guard(src, line):
        return None
    torch, extra = with_torch(src, [])
    guard = cst.If(
        test=cst.parse_expression(f"not {torch}.compiler.is_compiling()"),
        body=cst.IndentedBlock(body=[line.with_changes(leading_lines=())]),
        leading_lines=line.leading_lines,
    )
    edit = src.replace(line, guard)
    return [edit, *extra] if edit else None


# print, kept and reordered ------------------------------------------------------------------------
PRINT_BREAK_IDS = ("BRK201", "GB0059")  # a print Dynamo breaks on: static rule, Dynamo's id


def reorderable_print_added(text: str, torch: str) -> bool:
    """Whether the module's text adds `print` to Dynamo's reorderable logging functions."""
    return any(m.group("alias") == torch for m in REORDERABLE_PRINT.finditer(text))


def compile_decorated(fn: cst.FunctionDef, torch: str) -> bool:
    """Whether `fn` carries `@<torch>.compile` or `@<torch>.compile(...)`: Dynamo starts its
    own frame there (it is not inlined into a caller's)."""
    for dec in fn.decorators:
        expr = dec.decorator.func if isinstance(dec.decorator, cst.Call) else dec.decorator
        if dotted_name(expr) == f"{torch}.compile":
            return True
    return False


def mutates_in_place(fn: cst.FunctionDef) -> bool:
    """Whether `fn` may change a value in place: `x += ...`, `x[i] = ...`, `x.a = ...`,
    `x.add_(...)`, `out=`. A reordered print shows its tensors as they are at the end of
    the graph, so any of these could change what it prints (checked on 2.13: `y.add_(100)`
    after `print(y)` printed the added values)."""
    for node in iter_nodes(fn.body, (cst.AugAssign, cst.AssignTarget, cst.Call)):
        if isinstance(node, cst.AugAssign):
            return True
        if isinstance(node, cst.AssignTarget) and isinstance(node.target, (cst.Subscript, cst.Attribute)):
            return True
        if isinstance(node, cst.Call):
            if isinstance(node.func, cst.Attribute) and node.func.attr.value.endswith("_") \
                    and not node.func.attr.value.startswith("_"):
                return True
            if any(a.keyword is not None and a.keyword.value == "out" for a in node.args):
                return True
    return False


def _other_prints(fn_path: str, first: int, last: int, findings) -> bool:
    """Whether a print Dynamo may trace lies outside lines `first`..`last` of `fn_path`."""
    return any((f.rule_id in PRINT_BREAK_IDS or "GB0059" in f.gb_ids)
               and not (f.path == fn_path and first <= f.line <= last) for f in findings)


def _called_from_compiled_code(src: SourceFile, fn: cst.FunctionDef, torch: str) -> bool:
    """Whether another `@torch.compile` function or a `forward` of this module calls `fn` by
    its name (`fn(...)`, `self.fn(...)`)."""
    name = fn.name.value
    for other in iter_nodes(src.module, cst.FunctionDef):
        if other is fn or not (compile_decorated(other, torch) or other.name.value == "forward"):
            continue
        for call in iter_nodes(other.body, cst.Call):
            callee = call.func.attr if isinstance(call.func, cst.Attribute) else call.func
            if isinstance(callee, cst.Name) and callee.value == name:
                return True
    return False


def _print_calls(fn: cst.FunctionDef) -> list[cst.Call]:
    """The calls of the builtin `print` in `fn`, nested functions included."""
    return [n for n in iter_nodes(fn.body, cst.Call)
            if isinstance(n.func, cst.Name) and n.func.value == "print"]


@rewrite("reorder-print", needs_findings=True)
def reorder_print(src: SourceFile, finding: Finding, findings=()) -> list[Edit] | None:
    """Keep a `print` in compiled code without a graph break: add
    `torch._dynamo.config.reorderable_logging_functions.add(print)` after the module's imports.

    Dynamo then records the call and makes it after the graph has run (config.py,
    `reorderable_logging_functions`; DebuggingVariable in variables/misc.py). Checked with
    torch 2.13 (tests/test_fix.py): tensors, numbers, strings, f-strings and `str.format` of
    tensors print as in eager code. The setting is process-wide, so it is offered only where
    it keeps every print's output:
    - the print is directly in a `@torch.compile` function (Dynamo's own frame): a print in a
      function Dynamo inlines (a helper, a submodule's `forward`, a nested def) is recorded on
      the inlined frame and never made (2.13 drops it silently); and the scan finds no print
      in compiled code outside that function (it could be such an inlined print), suppressed
      ones included; and no `@torch.compile` function or `forward` of this module calls it
      (Dynamo would inline it there too; calls from other files are not detected);
    - no print in that function has keyword arguments (only positional ones are replayed:
      `sep=`, `end=` are lost);
    - nothing in the function changes a value in place (a reordered print shows a tensor as
      it is at the end of the graph).
    """
    line = _call_statement(src, finding)
    if line is None:
        return None
    call = line.body[0].value
    if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value == "print"
            and call.args):
        return None
    fn = src.ancestor(line, cst.FunctionDef)  # the innermost: a nested def would be inlined
    torch = torch_alias(src)
    if fn is None or torch is None or not compile_decorated(fn, torch) or mutates_in_place(fn) \
            or reorderable_print_added(src.text, torch):
        return None
    if any(a.keyword is not None or a.star for c in _print_calls(fn) for a in c.args):
        return None
    span = src.span(fn)
    if _other_prints(finding.path, span.start.line, span.end.line, findings) \
            or _called_from_compiled_code(src, fn, torch):
        return None
    return [_after_imports(src, f"{torch}._dynamo.config.reorderable_logging_functions.add(print)")]


def _after_first_imports(body) -> int:
    """Index of the first top-level statement after the module's first run of imports (after a
    leading docstring when there are none): 0 when the module has neither."""
    at = 0
    for i, stmt in enumerate(body):
        if _imports(stmt) or (i == 0 and _is_docstring(stmt)):
            at = i + 1
        elif at:
            break
    return at


def _after_imports(src: SourceFile, statement: str) -> Edit:
    """Insert `statement` as a line after the module's first run of top-level imports (after
    its docstring when it has none)."""
    body, tops = src.module.body, src.tops
    at = _after_first_imports(body)
    where = tops[at - 1][1] + 1 if at else 1
    newline = src.module.default_newline
    return Edit(where, 1, where, 1, newline + statement + newline)


@rewrite("delete-statement")
def delete_statement(src: SourceFile, finding: Finding) -> list[Edit] | None:
    """Remove a call statement (`torch._dynamo.graph_break()`); `pass` when the block would be
    empty; comment lines above it move to the next statement."""
    line = _call_statement(src, finding)
    if line is None:
        return None
    block = src.parent(line)
    assert isinstance(block, cst.IndentedBlock)
    body = list(block.body)
    i = next(k for k, stmt in enumerate(body) if stmt is line)
    del body[i]
    has_comments = any(empty.comment for empty in line.leading_lines)
    if i < len(body):
        body[i] = body[i].with_changes(leading_lines=(*line.leading_lines, *body[i].leading_lines))
    elif not body or has_comments:
        body.append(cst.SimpleStatementLine(body=[cst.Pass()], leading_lines=line.leading_lines))
    edit = src.replace(block, block.with_changes(body=body))
    return [edit] if edit else None


# torch.where ------------------------------------------------------------------------------------------
def _single_assign(block: cst.BaseSuite) -> tuple[str, cst.BaseExpression] | None:
    """(name, value) when `block` is exactly one `name = value` statement."""
    if not isinstance(block, cst.IndentedBlock) or len(block.body) != 1:
        return None
    stmt = block.body[0]
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign)):
        return None
    assign = stmt.body[0]
    if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
        return None
    return assign.targets[0].target.value, assign.value


def _bound_before(src: SourceFile, name: str, node: cst.CSTNode) -> bool:
    """Whether `name` is a parameter of the enclosing function or assigned earlier in it."""
    fn = src.ancestor(node, cst.FunctionDef)
    if fn is None:
        return False
    params = fn.params
    if name in {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}:
        return True
    line = src.span(node).start.line
    for target in _assign_targets(fn.body, name):
        if src.span(target).start.line < line:
            return True
    return False


@rewrite("where")
def where(src: SourceFile, finding: Finding) -> list[Edit] | None:
    """`if c: y = a / else: y = b` → `y = torch.where(c, a, b)` (no `else`: `b` is `y` itself,
    when `y` is bound before the `if`). Both sides are then evaluated on every call."""
    test = src.node_at(finding, cst.BaseExpression)
    node = src.parent(test) if test is not None else None
    if not isinstance(node, cst.If) or node.test is not test or isinstance(src.parent(node), cst.If):
        return None  # not an `if` test, or an `elif` (the statement would land after its `if`)
    then = _single_assign(node.body)
    if then is None:
        return None
    name, a = then
    if node.orelse is None:
        if not _bound_before(src, name, node):
            return None
        b: cst.BaseExpression = cst.Name(name)
    elif isinstance(node.orelse, cst.Else) and (other := _single_assign(node.orelse.body)) and other[0] == name:
        b = other[1]
    else:
        return None
    header = node.body.header.comment
    if any(c is not header for c in _comments(node)):  # comments inside would be lost
        return None
    torch, extra = with_torch(src, [])
    code = src.module.code_for_node
    stmt = cst.parse_statement(f"{name} = {torch}.where({code(test)}, {code(a)}, {code(b)})\n")
    stmt = stmt.with_changes(leading_lines=node.leading_lines, trailing_whitespace=node.body.header)
    edit = src.replace(node, stmt)
    return [edit, *extra] if edit else None


# scalars in tensor arithmetic --------------------------------------------------------------------
ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power)


def _tensor_operand(src: SourceFile, node: cst.CSTNode) -> bool:
    """Whether `node` is an operand of arithmetic whose other operand is surely a tensor."""
    parent = src.parent(node)
    if not isinstance(parent, cst.BinaryOperation) or not isinstance(parent.operator, ARITHMETIC):
        return False
    other = parent.right if parent.left is node else parent.left
    return is_tensor(src, other, src.ancestor(node, cst.FunctionDef), depth=0)


def is_tensor(src: SourceFile, expr: cst.BaseExpression, fn: cst.FunctionDef | None, depth: int) -> bool:
    """A small, sure-only tensor test: torch calls, tensor methods, tensor parameters of a
    `forward`, names assigned from such expressions earlier in the function, arithmetic of them."""
    if depth > 8:
        return False
    if isinstance(expr, cst.BinaryOperation):
        return is_tensor(src, expr.left, fn, depth + 1) or is_tensor(src, expr.right, fn, depth + 1)
    if isinstance(expr, cst.UnaryOperation) and not isinstance(expr.operator, cst.Not):
        return is_tensor(src, expr.expression, fn, depth + 1)
    if isinstance(expr, cst.Subscript):
        return is_tensor(src, expr.value, fn, depth + 1)
    if isinstance(expr, cst.Attribute):
        return expr.attr.value in ("T", "mT", "data") and is_tensor(src, expr.value, fn, depth + 1)
    if isinstance(expr, cst.Call):
        name = dotted_name(expr.func) or ""
        if name.startswith("torch.") and name not in TORCH_NON_TENSOR and name.count(".") == 1:
            return True
        if isinstance(expr.func, cst.Attribute) and expr.func.attr.value not in NON_TENSOR_METHODS \
                and expr.func.attr.value not in NON_TENSOR_ATTRS:
            return is_tensor(src, expr.func.value, fn, depth + 1)
        return False
    if isinstance(expr, cst.Name) and fn is not None:
        return _tensor_name(src, expr.value, expr, fn, depth)
    return False


def _tensor_name(src: SourceFile, name: str, use: cst.CSTNode, fn: cst.FunctionDef, depth: int) -> bool:
    params = (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params)
    for p in params:
        if p.name.value == name:
            ann = dotted_name(p.annotation.annotation) if p.annotation else None
            if ann is not None:
                return ann.rsplit(".", 1)[-1] == "Tensor"
            return p.default is None and name not in ("self", "cls") and _compiled_root(fn)
    line = src.span(use).start.line
    values = [a.value for a in iter_nodes(fn.body, cst.Assign)
              if len(a.targets) == 1 and _is_name(a.targets[0].target, name) and src.span(a).start.line < line]
    return bool(values) and all(is_tensor(src, v, fn, depth + 1) for v in values)


def _compiled_root(fn: cst.FunctionDef) -> bool:
    """A `forward` method or a function decorated with `torch.compile`: its unannotated
    parameters without defaults are the tensors it is called with."""
    if fn.name.value == "forward":
        return True
    for dec in fn.decorators:
        expr = dec.decorator.func if isinstance(dec.decorator, cst.Call) else dec.decorator
        if (dotted_name(expr) or "").endswith("compile"):
            return True
    return False


def _method_receiver(expr: cst.BaseExpression) -> cst.BaseExpression:
    """`expr` parenthesised when a method call on it would bind to a part of it."""
    if isinstance(expr, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) or expr.lpar:
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


@rewrite("item-to-tensor")
def item_to_tensor(src: SourceFile, finding: Finding) -> list[Edit] | None:
    """`x * s.item()` → `x * s`: the 0-d tensor takes part in the arithmetic directly."""
    call = src.node_at(finding, cst.Call)
    if call is None or call.args or not (isinstance(call.func, cst.Attribute) and call.func.attr.value == "item"):
        return None
    if not _tensor_operand(src, call):
        return None
    receiver = call.func.value
    if call.lpar:
        receiver = receiver.with_changes(lpar=call.lpar, rpar=call.rpar) if not receiver.lpar else receiver
    edit = src.replace(call, receiver)
    return [edit] if edit else None


SCALAR_METHOD = {"float": "", "int": "trunc", "math.floor": "floor", "math.ceil": "ceil", "math.trunc": "trunc"}


@rewrite("scalar-to-tensor")
def scalar_to_tensor(src: SourceFile, finding: Finding) -> list[Edit] | None:
    """`x / float(t)` → `x / t`; `int(t)` → `t.trunc()`; `math.floor(t)` → `t.floor()` (ceil,
    trunc alike), inside arithmetic with a tensor."""
    call = src.node_at(finding, cst.Call)
    if call is None or len(call.args) != 1 or call.args[0].keyword or call.args[0].star:
        return None
    method = SCALAR_METHOD.get(dotted_name(call.func) or "")
    if method is None or not _tensor_operand(src, call):
        return None
    value = call.args[0].value
    new: cst.BaseExpression = value
    if method:
        new = cst.Call(func=cst.Attribute(value=_method_receiver(value), attr=cst.Name(method)))
    elif not isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) and not value.lpar:
        new = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    edit = src.replace(call, new.with_changes(lpar=call.lpar, rpar=call.rpar) if call.lpar else new)
    return [edit] if edit else None


# Small structural tests instead of libcst.matchers, whose import alone costs about a second.
def _is_docstring(stmt: cst.CSTNode) -> bool:
    return (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
            and isinstance(stmt.body[0], cst.Expr) and isinstance(stmt.body[0].value, cst.SimpleString))


def _is_name(node: cst.CSTNode, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def _assign_targets(body: cst.CSTNode, name: str) -> list[cst.AssignTarget]:
    return [t for t in iter_nodes(body, cst.AssignTarget) if _is_name(t.target, name)]


def _comments(node: cst.CSTNode):
    """Every Comment under `node` (the cheap walker skips trivia; this one must not)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Comment):
            yield current
        stack.extend(current.children)
