"""Compile regions: which functions Dynamo will trace, and the call chain from each root.

Roots: functions decorated with `torch.compile`, targets of `torch.compile(...)` and
`module.compile()`, callables yielded by `breakscan_examples()`, and (mode `modules`) every
`nn.Module.forward`. From each root the region follows calls to project functions, methods
(`self.m()`, `super().m()`), and submodules built in `__init__`, across files. Functions
decorated with `torch.compiler.disable` end a region.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass

import libcst as cst

from breakscan.static.walk import iter_nodes, walk
from breakscan.static.index import (
    ClassInfo,
    ModuleInfo,
    ProjectIndex,
    decorator_names,
    dotted_name,
)

COMPILE_CALLS = {"torch.compile", "torch._dynamo.optimize", "torch.compiler.compile"}
COMPILING_PREDICATES = {
    "torch.compiler.is_compiling", "torch._dynamo.is_compiling",
    "torch.compiler.is_dynamo_compiling", "torch._dynamo.external_utils.is_compiling",
    "torch._utils.is_compiling",
}
# Predicates that are False under Dynamo: code under them is not traced.
NOT_COMPILING_PREDICATES = {"torch.jit.is_scripting", "torch.jit.is_tracing", "torch.onnx.is_in_onnx_export"}


_COMPILE_CALL = re.compile(r"(?<![\w])compile\s*\(|\boptimize\s*\(")


@dataclass(frozen=True)
class Region:
    """A function inside a compile region: where it is and how a root reaches it."""

    module: ModuleInfo
    cls: ClassInfo | None
    node: cst.FunctionDef
    chain: tuple[str, ...]  # qualified-ish names from the root, root first

    @property
    def name(self) -> str:
        """`Class.method` or `function`."""
        return f"{self.cls.name}.{self.node.name.value}" if self.cls else self.node.name.value


def compiling_guard(info: ModuleInfo, test: cst.BaseExpression, project_helpers: set[str] = frozenset()) -> bool | None:
    """True/False when `test` is known under Dynamo (`is_compiling()` and friends), else None."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = compiling_guard(info, test.expression, project_helpers)
        return None if inner is None else not inner
    if isinstance(test, cst.Call) and not test.args:
        name = dotted_name(test.func)
        if name is None:
            return None
        qual = info.qualify(name)
        last = name.rsplit(".", 1)[-1]
        if qual in COMPILING_PREDICATES or qual in project_helpers or last in (
            "is_torchdynamo_compiling", "is_dynamo_compiling", "is_compiling"):
            return True
        if qual in NOT_COMPILING_PREDICATES:
            return False
    return None


class _CallCollector:
    """Collects calls in a function body, skipping branches Dynamo does not trace."""

    def __init__(self, info: ModuleInfo) -> None:
        self.info = info
        self.calls: list[cst.Call] = []

    def visit_If(self, node: cst.If) -> bool:
        known = compiling_guard(self.info, node.test)
        if known is None:
            return True
        if known:
            walk(node.body, self)
        elif node.orelse is not None:
            walk(node.orelse, self)
        return False

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)


def _is_module_class(index: ProjectIndex, cls: ClassInfo, depth: int = 0) -> bool:
    if "forward" not in cls.methods and depth == 0:
        return False
    return bool(cls.bases)


class RegionFinder:
    """Computes the regions of a whole project index; see the module docstring."""

    def __init__(self, index: ProjectIndex, mode: str = "modules") -> None:
        if mode not in ("modules", "explicit"):
            raise ValueError(f"regions mode must be 'modules' or 'explicit', not {mode!r}")
        self.index = index
        self.mode = mode
        self.regions: dict[int, Region] = {}
        self._queue: deque[Region] = deque()

    def compute(self) -> dict[int, Region]:
        """Map `id(FunctionDef)` → Region for every function Dynamo will trace."""
        for info in list(self.index.modules.values()):
            self._roots(info)
        while self._queue:
            self._expand(self._queue.popleft())
        return self.regions

    # roots -------------------------------------------------------------------------------
    def _add(self, module: ModuleInfo, cls: ClassInfo | None, node: cst.FunctionDef,
             chain: tuple[str, ...]) -> None:
        if id(node) in self.regions:
            return
        qual = f"{cls.qualname}.{node.name.value}" if cls else f"{module.name}.{node.name.value}"
        if qual in module.disabled or self.index.is_disabled(qual):
            return
        region = Region(module, cls, node, chain)
        self.regions[id(node)] = region
        self._queue.append(region)

    def _add_class_forward(self, class_qualname: str, chain: tuple[str, ...]) -> None:
        found = self.index.method(class_qualname, "forward")
        if found:
            mod, cls, fn = found
            self._add(mod, cls, fn, chain + (f"{cls.name}.forward",))

    def _roots(self, info: ModuleInfo) -> None:
        for name, fn in info.functions.items():
            if COMPILE_CALLS & set(decorator_names(info, fn)):
                self._add(info, None, fn, (name,))
        for cls in info.classes.values():
            for mname, fn in cls.methods.items():
                if COMPILE_CALLS & set(decorator_names(info, fn)):
                    self._add(info, cls, fn, (f"{cls.name}.{mname}",))
            if self.mode == "modules" and _is_module_class(self.index, cls):
                self._add(info, cls, cls.methods["forward"], (f"{cls.name}.forward",))
        self._compile_call_targets(info)

    def _compile_call_targets(self, info: ModuleInfo) -> None:
        has_examples = "breakscan_examples" in info.functions
        has_compile = _COMPILE_CALL.search(info.source) is not None
        if not has_compile and not has_examples:
            return  # cheap pre-filter: no torch.compile(...) / .compile() call can be here
        var_classes = _variable_classes(info)
        for call in iter_nodes(info.tree, cst.Call) if has_compile else ():
            name = dotted_name(call.func)
            if not name:
                continue
            qual = info.qualify(name)
            if qual in COMPILE_CALLS and call.args:
                self._target(info, call.args[0].value, var_classes)
            elif name.endswith(".compile") and not call.args and isinstance(call.func, cst.Attribute):
                self._target(info, call.func.value, var_classes)  # model.compile()
        examples = info.functions.get("breakscan_examples")
        if examples is not None:
            for target in _example_targets(examples):
                self._target(info, target, var_classes, examples=examples)

    def _target(self, info: ModuleInfo, expr: cst.BaseExpression, var_classes: dict[str, str],
                examples: cst.FunctionDef | None = None) -> None:
        if isinstance(expr, cst.Call):  # torch.compile(Model(...))
            name = dotted_name(expr.func)
            if name:
                self._target_name(info, info.qualify(name), ())
            return
        name = dotted_name(expr)
        if not name:
            return
        head, _, attr = name.partition(".")
        if head in var_classes:
            cls_q = var_classes[head]
            if attr in ("", "forward"):
                self._add_class_forward(cls_q, ())
            else:
                found = self.index.method(cls_q, attr)
                if found:
                    mod, cls, fn = found
                    self._add(mod, cls, fn, (f"{cls.name}.{attr}",))
            return
        self._target_name(info, info.qualify(name), ())

    def _target_name(self, info: ModuleInfo, qual: str, chain: tuple[str, ...]) -> None:
        fn = self.index.lookup_function(qual)
        if fn:
            mod, node = fn
            self._add(mod, None, node, chain + (node.name.value,))
            return
        if self.index.lookup_class(qual):
            self._add_class_forward(qual, chain)
            return
        owner, _, meth = qual.rpartition(".")  # Class.method
        found = self.index.method(owner, meth) if owner else None
        if found:
            mod, cls, node = found
            self._add(mod, cls, node, chain + (f"{cls.name}.{meth}",))

    # expansion ---------------------------------------------------------------------------
    def _expand(self, region: Region) -> None:
        info = region.module
        if region.cls is not None:
            _, _, subs = self.index.class_attr_kinds(region.cls.qualname)
            for classes in subs.values():
                for q in classes:
                    self._add_class_forward(q, region.chain)
        collector = _CallCollector(info)
        walk(region.node.body, collector)
        for call in collector.calls:
            self._follow(region, call)

    def _follow(self, region: Region, call: cst.Call) -> None:
        func = call.func
        info = region.module
        if isinstance(func, cst.Attribute):
            recv = func.value
            meth = func.attr.value
            if isinstance(recv, cst.Name) and recv.value == "self" and region.cls is not None:
                found = self.index.method(region.cls.qualname, meth)
                if found:
                    mod, cls, node = found
                    self._add(mod, cls, node, region.chain + (f"{cls.name}.{meth}",))
                return
            if (isinstance(recv, cst.Call) and dotted_name(recv.func) == "super"
                    and region.cls is not None):
                for base in region.cls.bases:
                    found = self.index.method(base, meth)
                    if found:
                        mod, cls, node = found
                        self._add(mod, cls, node, region.chain + (f"{cls.name}.{meth}",))
                        break
                return
        name = dotted_name(func)
        if name:
            self._target_name(info, info.qualify(name), region.chain)


def _variable_classes(info: ModuleInfo) -> dict[str, str]:
    """`model = Model(...)` anywhere in the module → {"model": qualified Model} (scope-blind)."""
    out: dict[str, str] = {}
    for node in iter_nodes(info.tree, cst.Assign):
        value = node.value
        if isinstance(value, cst.Call):
            name = dotted_name(value.func)
            if name and name.rsplit(".", 1)[-1][:1].isupper():
                for t in node.targets:
                    if isinstance(t.target, cst.Name):
                        out[t.target.value] = info.qualify(name)
    return out


def _example_targets(fn: cst.FunctionDef) -> list[cst.BaseExpression]:
    """First elements of the tuples `breakscan_examples()` yields or returns."""
    targets: list[cst.BaseExpression] = []

    class Tuples:
        def visit_Yield(self, node: cst.Yield) -> None:
            if isinstance(node.value, cst.Tuple) and node.value.elements:
                targets.append(node.value.elements[0].value)

        def visit_Tuple(self, node: cst.Tuple) -> None:
            if len(node.elements) in (2, 3):
                first = node.elements[0].value
                if isinstance(first, (cst.Name, cst.Attribute, cst.Call)):
                    targets.append(first)

    walk(fn, Tuples())
    return targets
