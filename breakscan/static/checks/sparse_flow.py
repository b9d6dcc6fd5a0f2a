"""A sparse tensor made in a compile region breaks again where it is next used (BRK243).

Dynamo breaks the graph where a sparse tensor is made (`torch.sparse_csr_tensor`, `.to_sparse()`);
the graph resumed after that break receives the sparse tensor as an input, and wrapping it fails
(`Attempted to wrap sparse Tensor`, GB0015): the next statement that reads the local breaks too,
a `return adj` included (measured on 2.13 and 2.15). The producers are the `calls` and
`tensor_methods` of the rule named `sparse-tensor-in-region` (BRK226); the read is BRK243.
"""

from __future__ import annotations

import libcst as cst

from breakscan.static.checks.base import CheckBase
from breakscan.static.syntax import dotted_name
from breakscan.static.walk import iter_nodes

CHECK = "sparse-tensor-use"
PRODUCER = "sparse-tensor-in-region"


class SparseFlowChecks(CheckBase):
    """Locals bound to a sparse tensor in a region function, and their first read after."""

    def _sparse_scope(self) -> dict[str, bool] | None:
        """name -> still unread, for the function being walked (None outside one)."""
        fn = self.env.function if self.env is not None else None
        if fn is None:
            return None
        return self.__dict__.setdefault("_sparse_locals", {}).setdefault(id(fn), {})

    def _note_sparse_binding(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        """After `target = value`: remember `target` when `value` makes a sparse tensor."""
        if self.region is None or not isinstance(target, cst.Name) or not self.rules.checks.get(CHECK):
            return
        scope = self._sparse_scope()
        if scope is None:
            return
        if value is not None and self._makes_sparse(value):
            scope[target.value] = True
        else:
            scope.pop(target.value, None)

    def _makes_sparse(self, value: cst.BaseExpression, depth: int = 0) -> bool:
        """A call BRK226 matches, or (one level) a call of a function of this module that returns
        one directly or through a local (`adj = torch.sparse_csr_tensor(...); return adj`)."""
        if not isinstance(value, cst.Call):
            return False
        if depth == 0 and self._returns_sparse(value):
            return True
        func = value.func
        if (isinstance(func, cst.Attribute) and self.env is not None and self.env.is_tensor(func.value)
                and any(rule.name == PRODUCER for rule in self.rules.tensor_methods.get(func.attr.value, ()))):
            return True
        name = dotted_name(func)
        return (name is not None and not self._is_shadowed(name)
                and any(rule.name == PRODUCER for rule in self.rules.rules_for_call(self.info.qualify(name))))

    def _returns_sparse(self, call: cst.Call) -> bool:
        callee = self._callee(call)
        node = self._defined_once(callee[0]) if callee is not None else None
        if node is None:
            return False
        bound = {t.target.value: a.value for a in iter_nodes(node.body, cst.Assign) for t in a.targets
                 if isinstance(t.target, cst.Name)}
        for ret in iter_nodes(node.body, cst.Return):
            value = ret.value
            if isinstance(value, cst.Name):
                value = bound.get(value.value)
            if value is not None and self._makes_sparse(value, depth=1):
                return True
        return False

    def sparse_read(self, node: cst.Name) -> None:
        """A read of `node`'s name: BRK243 when it is a sparse local's first (RegionVisitor's
        visit_Name calls this; most functions bind no sparse local, so that is decided first)."""
        sparse = self.__dict__.get("_sparse_locals")
        if not sparse or self.region is None or self.env is None:
            return
        scope = sparse.get(id(self.env.function))
        if not scope or not scope.get(node.value) or id(node) in self._store_names():
            return
        scope[node.value] = False  # the resumed frame falls back: later reads do not break again
        self._emit_check(CHECK, node)

    def _store_names(self) -> set[int]:
        cache = self.__dict__.setdefault("_store_name_ids", {})
        stores = self._function_stores()
        if id(stores) not in cache:
            cache[id(stores)] = {id(t) for t in stores if isinstance(t, cst.Name)}
        return cache[id(stores)]


# Which checks each visit_ method runs (errors.rules_at_risk).
METHOD_CHECKS: dict[str, tuple[str, ...]] = {"visit_Name": (CHECK,)}  # through sparse_read
