"""Checks on what decides control flow: `if`/`while`/conditional-expression tests, `assert`,
`and`/`or`/`not` operands (BRK101 and its kin), and `with` items (context managers)."""

from __future__ import annotations

import libcst as cst

from breakscan.static.checks.base import CheckBase
from breakscan.static.syntax import compiling_guard, dotted_name
from breakscan.static.tensors import TENSORISH
from breakscan.static.walk import walk

LOCK_FACTORIES = {"threading.Lock", "threading.RLock", "threading.Semaphore", "threading.Condition",
                  "threading.BoundedSemaphore", "multiprocessing.Lock", "multiprocessing.RLock"}
# Anomaly detection: torch/autograd is in trace_rules' MOD_SKIPLIST and Dynamo has no variable for
# these classes, so entering one is "Unsupported context manager" (GB0142; 2.13 and 2.15).
ANOMALY_MODES = {"torch.autograd.set_detect_anomaly", "torch.autograd.detect_anomaly",
                 "torch.autograd.anomaly_mode.set_detect_anomaly", "torch.autograd.anomaly_mode.detect_anomaly"}

# contextlib managers Dynamo refuses by type (torch/_dynamo/variables/user_defined.py, GB0262);
# `contextmanager` functions, `nullcontext` and `suppress` are traced.
CONTEXTLIB_REFUSED = {"contextlib.closing", "contextlib.redirect_stdout", "contextlib.redirect_stderr",
                      "contextlib.AsyncExitStack"}

_METADATA_ATTRS = {"dtype", "device", "is_cuda", "training", "requires_grad", "is_meta", "is_cpu"}


def _is_metadata_condition(expr: cst.BaseExpression) -> bool:
    """A test on dtype/device/training...: what follows it in `and`/`or` may never run."""
    for node in (expr.left, *(c.comparator for c in expr.comparisons)) if isinstance(expr, cst.Comparison) else (expr,):
        if isinstance(node, cst.Attribute) and node.attr.value in _METADATA_ATTRS:
            return True
    if isinstance(expr, cst.BooleanOperation):
        return _is_metadata_condition(expr.left) or _is_metadata_condition(expr.right)
    return False


def _is_string_literal(expr: cst.BaseExpression) -> bool:
    """A plain string constant (`"msg"`, `"a" "b"`): not an f-string or any other expression."""
    if isinstance(expr, cst.SimpleString):
        return True
    if isinstance(expr, cst.ConcatenatedString):
        return _is_string_literal(expr.left) and _is_string_literal(expr.right)
    return False


def _exits(suite: cst.BaseSuite | None) -> bool:
    """A suite whose last statement is `return` or `raise`."""
    if isinstance(suite, cst.IndentedBlock):
        last = suite.body[-1] if suite.body else None
        if not isinstance(last, cst.SimpleStatementLine):
            return False
        small = last.body
    elif isinstance(suite, cst.SimpleStatementSuite):
        small = suite.body
    else:
        return False
    return bool(small) and isinstance(small[-1], (cst.Return, cst.Raise))


class ControlFlowChecks(CheckBase):
    """Tests whose truth a tensor would decide (a graph break), and the `with` statement."""

    # traced-branch pruning -----------------------------------------------------------------
    def visit_If(self, node: cst.If) -> bool:
        self._switch_branch(node)  # an elif ends its parent's body (binding.Binder)
        if self.region is None:
            self._open_branch(node)
            return True
        known = compiling_guard(self.info, node.test, self.index.compiling_helpers)
        if known is None:
            self._open_branch(node)
            self._check_test(node.test)
            return True
        if isinstance(node.test, (cst.BooleanOperation, cst.Comparison)):
            walk(node.test, self)  # its calls run (`get_worker_info()` breaks); `and`/`or` prune the rest
        if known:
            walk(node.body, self)
        elif node.orelse is not None:
            walk(node.orelse, self)
        return False

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> bool:
        """A block whose statements after a known `if` that returns never run under Dynamo
        (`if is_compiling(): return fast(x)` then `return safe(x)`): only those up to it are
        walked (the ast twin is index.live_statements)."""
        if self.region is None:
            return True
        for i, stmt in enumerate(node.body):
            if isinstance(stmt, cst.If) and _exits(self._taken_arm(stmt)):
                for live in node.body[:i + 1]:
                    walk(live, self)
                return False
        return True

    def _taken_arm(self, node: cst.If) -> cst.BaseSuite | None:
        """The suite Dynamo runs for `node` when its test is known, else None."""
        known = compiling_guard(self.info, node.test, self.index.compiling_helpers)
        if known is None:
            return None
        if known:
            return node.body
        return node.orelse.body if isinstance(node.orelse, cst.Else) else None

    def visit_While(self, node: cst.While) -> None:
        if self.region is not None:
            self._check_test(node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        if self.region is not None:
            self._check_test(node.test)

    def visit_CompIf(self, node: cst.CompIf) -> None:
        if self.region is not None:  # `[r for r in rows if r.sum() > 0]`
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

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> bool:
        if self.region is not None and id(node) not in self._test_nodes:
            self._check_test(node.left)  # the left operand's truth decides short-circuiting
        if self.region is not None and self._short_circuited(node):
            walk(node.left, self)
            return False
        return True

    def _short_circuited(self, node: cst.BooleanOperation) -> bool:
        """Whether Dynamo never evaluates `node.right`: `is_compiling() or <right>`,
        `torch.jit.is_scripting() and <right>` (the left side's value under Dynamo is known)."""
        known = compiling_guard(self.info, node.left, self.index.compiling_helpers)
        return known is not None and known is isinstance(node.operator, cst.Or)

    def _check_test(self, test: cst.BaseExpression, guard: cst.BaseExpression | None = None) -> None:
        """Check an `if`/`while` test. `guard`: the test an operand runs behind (`a and <operand>`);
        noted here, before visit_BooleanOperation would note it, so that the finding carries it."""
        assert self.env is not None
        if guard is not None:
            self._guards.setdefault(id(test), guard)
        if isinstance(test, cst.BooleanOperation):
            self._test_nodes.add(id(test))
            self._check_test(test.left, guard)
            if self._short_circuited(test):
                return
            if _is_metadata_condition(test.left):  # the right side runs only for some configs
                self._conditional.add(id(test.right))
            else:  # `isinstance(k, int) and k > 0`: no tensor `k` on the right
                narrowed = self._narrow(test.left, holds=isinstance(test.operator, cst.And))
                self._check_test(test.right, guard or test.left)
                self._widen(narrowed)
            return
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            return  # visit_UnaryOperation checks the operand
        if isinstance(test, cst.Attribute) and test.attr.value == "training":
            self._emit_check("training-branch", test)
        elif isinstance(test, cst.Comparison) and self._compares_str_param(test):
            self._emit_check("string-argument", test)
        elif self.env.reads_as_tensor(test) and not self._guessed_test(test):
            self._emit_check("tensor-branch", test)

    def _guessed_test(self, test: cst.BaseExpression) -> bool:
        """A test that is a tensor only through a root parameter taken for one by convention and
        never used as one (`_only_guessed`): `if i + 1 < len(self.timesteps):` in a compiled
        `step(self, x, i)` whose `i` only indexes and counts is an int the caller passes (Dynamo
        specialises it: no break, measured on 2.13)."""
        if isinstance(test, cst.Comparison):
            operands = [test.left, *(c.comparator for c in test.comparisons)]
            tensors = [o for o in operands if self.env.is_tensor(o)]
            return bool(tensors) and all(self._only_guessed(o) for o in tensors)
        return self._only_guessed(test)

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

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if self.region is None:
            return
        expr = node.item
        if isinstance(expr, cst.Call):
            name = dotted_name(expr.func)
            qual = self.info.qualify(name) if name else ""
            if qual in {"open", "io.open"} | LOCK_FACTORIES | ANOMALY_MODES:
                self._emit_check("unsupported-context-manager", node)
            elif qual in CONTEXTLIB_REFUSED:
                self._emit_check("contextlib-unsupported", node)
            return
        name = dotted_name(expr)
        if name is None:
            return
        if self.info.module_vars.get(name, "") in LOCK_FACTORIES:
            self._emit_check("unsupported-context-manager", node)
        elif isinstance(expr, cst.Name) and self._params and expr.value in self._params[-1] \
                and self.env is not None and self.env.lookup(expr.value) not in TENSORISH:
            self._emit_check("unsupported-context-manager", node)


# Which checks each visit_ method runs (errors.rules_at_risk).
_BRANCH = ("tensor-branch", "training-branch", "string-argument")
METHOD_CHECKS: dict[str, tuple[str, ...]] = {
    "visit_If": _BRANCH, "visit_While": _BRANCH, "visit_IfExp": _BRANCH,
    "visit_UnaryOperation": _BRANCH, "visit_BooleanOperation": _BRANCH,
    "visit_Assert": ("tensor-branch",), "visit_WithItem": ("unsupported-context-manager", "contextlib-unsupported"),
}
