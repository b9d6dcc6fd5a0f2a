"""What every check module shares: the walker's state and how a check reports a match."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import libcst as cst

from breakscan.catalog import Rule
from breakscan.static.checks.binding import Binder
from breakscan.static.checks.rule_index import Hit, RuleIndex
from breakscan.static.index import ModuleInfo, ProjectIndex
from breakscan.static.regions import Region
from breakscan.static.tensors import TypeEnv, self_attribute
from breakscan.static.walk import iter_nodes


class CheckBase(Binder):
    """The state of the walker (RegionVisitor, which sets it up) that its check mixins read.

    `env` is the current scope's type environment and `region` the compile region being walked
    (both None outside a region function); `_params`, `_scalar_params` and `_str_params` hold the
    parameter names of the enclosing region functions, innermost last.
    """

    info: ModuleInfo
    index: ProjectIndex
    rules: RuleIndex
    env: TypeEnv | None
    region: Region | None
    hits: list[Hit]
    _root: tuple[Region, cst.FunctionDef] | None
    _breaks: int
    _params: list[set[str]]
    _scalar_params: list[set[str]]
    _str_params: list[set[str]]
    _mentions_data_ptr: bool  # the module's text has `data_ptr` (set by the visitor)
    _mentions_storage: bool  # the module's text has `untyped_storage` (set by the visitor)
    _fresh: list[set[str]]
    _disabled_locals: list[set[str]]  # per scope: locals bound to `torch.compiler.disable(fn)`
    _guessed: list[set[str]]
    _guards: dict[int, cst.BaseExpression]  # id of a node that runs only behind a test -> that test
    _handlers: int  # depth of `except` handlers around the node being walked
    _pending_inits: list[tuple[cst.Call, int]]  # `super().__init__()` calls of a traced module __init__
    _breaks_at_def: int  # `_breaks` when the walk entered the current region function
    _root_extent: tuple[int, int, int] | None  # lines of `_root`'s def when not the region function
    functions: dict[tuple[str, int], cst.FunctionDef]  # CallSiteInference's: this module's defs by (qualname, occurrence)
    _rnn_sites: set[tuple[int, str, int]]  # BRK231 sites emitted: (node id, rule id, region id)

    # RegionVisitor's: whether `expr` is a tensor only by the root-parameter convention
    _only_guessed: Callable[[cst.BaseExpression], bool]
    # RegionVisitor's: whether `expr` is a tensor computed in the graph being traced
    _computes: Callable[[cst.BaseExpression], bool]
    # RegionVisitor's: the higher-order operator whose nested branch holds the current node, or ""
    branch_of: Callable[[], str]
    # CallSiteInference's: whether a tensor-annotated parameter is passed boolean tensors at every call
    bool_at_call_sites: Callable[[str], bool]

    def _function_stores(self) -> list[cst.BaseExpression]:
        """call_sites.store_targets of the function being walked (empty outside one), once per def."""
        fn = self.env.function if self.env is not None else None
        return self._stores_of(fn) if fn is not None else []

    def _stores_of(self, fn: cst.FunctionDef) -> list[cst.BaseExpression]:
        """call_sites.store_targets of `fn`, once per def."""
        cache = self.__dict__.setdefault("_function_stores_cache", {})
        if id(fn) not in cache:
            from breakscan.static.checks.call_sites import store_targets  # call_sites imports this module
            cache[id(fn)] = store_targets(fn)
        return cache[id(fn)]

    def _class_assignments(self, attr: str) -> tuple[list[tuple[cst.BaseExpression, cst.FunctionDef, tuple[str, int]]], bool]:
        """Every `self.<attr> = value` in the methods this module defines for the walked region's
        class: `(value, method, its (qualname, occurrence))`, and whether those are all the stores
        to it (not `self.x += 1`, `self.x, y = ...`). Empty without a region class; once per class
        and attribute."""
        region = self.region
        if region is None or region.cls is None:
            return [], False
        cls_name = region.function.qualname.rpartition(".")[0]
        cache = self.__dict__.setdefault("_class_assignments_cache", {})
        per_class = cache.get(cls_name)
        if per_class is None:  # one walk of the class's methods for all its attributes
            values: dict[str, list[tuple[cst.BaseExpression, cst.FunctionDef, tuple[str, int]]]] = {}
            stores: dict[str, int] = {}
            for key, method in self.functions.items():
                if key[0].rpartition(".")[0] != cls_name:
                    continue
                for assign in iter_nodes(method.body, cst.Assign):
                    for t in assign.targets:
                        if name := self_attribute(t.target):
                            values.setdefault(name, []).append((assign.value, method, key))
                for t in self._stores_of(method):
                    if name := self_attribute(t):
                        stores[name] = stores.get(name, 0) + 1
            per_class = cache[cls_name] = (values, stores)
        found = per_class[0].get(attr, [])
        return found, per_class[1].get(attr, 0) == len(found)

    # emit --------------------------------------------------------------------------------
    def _emit_check(self, check: str, node: cst.CSTNode) -> None:
        for rule in self.rules.checks.get(check, ()):
            self._emit(rule, node)

    def _emit(self, rule: Rule, node: cst.CSTNode) -> None:
        assert self.region is not None
        assert self._root is not None
        region = self._root[0]
        under = self.branch_of() if not region.under else ""
        if under:  # in a nested def or lambda passed to torch.cond: reported as the branch's error
            region = dataclasses.replace(region, under=under)
        self.hits.append(Hit(rule, node, region, self._root[1], self._guards.get(id(node)),
                             self._root_extent, self._handlers > 0))
        if rule.kind.value == "graph-break":
            self._breaks += 1

    def _is_shadowed(self, name: str) -> bool:
        """Whether a dotted name's head is a local of the function, not the imported module."""
        head = name.split(".")[0]
        return self.env is not None and head in self.env.names and head not in self.info.imports
