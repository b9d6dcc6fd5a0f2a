"""The project index: imports, functions, classes and compile targets of every scanned module.

Built from the libcst trees of all scanned files first, so that compile regions can follow
calls across functions, classes and files before any rule runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst

from breakscan.static.walk import iter_nodes, walk

FunctionNode = cst.FunctionDef


def dotted_name(node: cst.BaseExpression) -> str | None:
    """`a.b.c` for a Name/Attribute chain, else None."""
    parts: list[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Name):
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


def module_name_for(path: Path) -> str:
    """The dotted module name of `path`, walking up while packages have `__init__.py`."""
    parts = [path.stem] if path.stem != "__init__" else []
    parent = path.parent
    while (parent / "__init__.py").is_file():
        parts.append(parent.name)
        if parent.parent == parent:
            break
        parent = parent.parent
    return ".".join(reversed(parts)) or path.stem


@dataclass
class ClassInfo:
    """A class: its bases (qualified), methods, and what `__init__` stores on `self`."""

    name: str
    qualname: str  # module-qualified, e.g. "pkg.mod.Block"
    node: cst.ClassDef
    bases: list[str] = field(default_factory=list)
    methods: dict[str, FunctionNode] = field(default_factory=dict)
    submodules: dict[str, list[str]] = field(default_factory=dict)  # attr -> qualified class names
    tensor_attrs: set[str] = field(default_factory=set)  # parameters and buffers
    scalar_attrs: set[str] = field(default_factory=set)  # python values set in __init__
    numeric_attrs: set[str] = field(default_factory=set)  # int/float literals set in __init__


@dataclass
class ModuleInfo:
    """One scanned file's index entry."""

    path: Path
    name: str
    tree: cst.Module
    source: str = ""
    imports: dict[str, str] = field(default_factory=dict)  # local name -> qualified name
    functions: dict[str, FunctionNode] = field(default_factory=dict)
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    module_vars: dict[str, cst.BaseExpression] = field(default_factory=dict)
    disabled: set[str] = field(default_factory=set)  # qualified names of disabled functions
    rebound_globals: set[str] = field(default_factory=set)  # module scalars that get re-bound

    def qualify(self, name: str) -> str:
        """Resolve a dotted local name through imports and local definitions."""
        head, _, rest = name.partition(".")
        if head in self.imports:
            base = self.imports[head]
        elif head in self.functions or head in self.classes or head in self.module_vars:
            base = f"{self.name}.{head}"
        else:
            base = head  # a builtin or unknown global
        return f"{base}.{rest}" if rest else base


def _resolve_relative(module: str, is_package: bool, level: int, target: str | None) -> str:
    parts = module.split(".")
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: len(parts) - (level - 1)]
    if target:
        parts.append(target)
    return ".".join(p for p in parts if p)


def _collect_imports(info: ModuleInfo, stmt: cst.CSTNode) -> None:
    if isinstance(stmt, cst.Import):
        for alias in stmt.names:
            full = dotted_name(alias.name) or ""
            if alias.asname and isinstance(alias.asname.name, cst.Name):
                info.imports[alias.asname.name.value] = full
            else:
                head = full.split(".")[0]
                info.imports[head] = head
    elif isinstance(stmt, cst.ImportFrom):
        mod = dotted_name(stmt.module) if stmt.module else None
        if stmt.relative:
            mod = _resolve_relative(info.name, info.path.name == "__init__.py",
                                    len(stmt.relative), mod)
        if isinstance(stmt.names, cst.ImportStar) or not mod:
            return
        for alias in stmt.names:
            name = dotted_name(alias.name) or ""
            local = name
            if alias.asname and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            info.imports[local] = f"{mod}.{name}"


DISABLE_DECORATORS = {"torch.compiler.disable", "torch._dynamo.disable", "torch._disable_dynamo",
                      "torch._dynamo.decorators.disable"}


def decorator_names(info: ModuleInfo, fn: cst.FunctionDef | cst.ClassDef) -> list[str]:
    """Qualified names of `fn`'s decorators (`@torch.compile(...)` gives `torch.compile`)."""
    names = []
    for dec in fn.decorators:
        expr = dec.decorator.func if isinstance(dec.decorator, cst.Call) else dec.decorator
        name = dotted_name(expr)
        if name:
            names.append(info.qualify(name))
    return names


def _class_info(info: ModuleInfo, node: cst.ClassDef) -> ClassInfo:
    cls = ClassInfo(node.name.value, f"{info.name}.{node.name.value}", node)
    for arg in node.bases:
        name = dotted_name(arg.value)
        if name:
            cls.bases.append(info.qualify(name))
    for stmt in node.body.body:
        if isinstance(stmt, cst.FunctionDef):
            cls.methods[stmt.name.value] = stmt
    init = cls.methods.get("__init__")
    if init is not None:
        _collect_self_attrs(info, cls, init)
    return cls


def _called_classes(info: ModuleInfo, expr: cst.CSTNode) -> list[str]:
    """Qualified names of everything called inside `expr` (for `nn.ModuleList([Block()...])`)."""
    found: list[str] = []
    for node in iter_nodes(expr, cst.Call):
        name = dotted_name(node.func)
        if name:
            found.append(info.qualify(name))
    return found


TENSOR_FACTORIES = ("torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.tensor",
                    "torch.zeros", "torch.ones", "torch.randn", "torch.rand", "torch.empty",
                    "torch.arange", "torch.full", "torch.eye")


def _collect_self_attrs(info: ModuleInfo, cls: ClassInfo, init: cst.FunctionDef) -> None:
    class SelfAssigns:
        def visit_Assign(self, node: cst.Assign) -> None:
            for target in node.targets:
                t = target.target
                if (isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name)
                        and t.value.value == "self"):
                    _record_attr(info, cls, t.attr.value, node.value)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            t = node.target
            if (node.value is not None and isinstance(t, cst.Attribute)
                    and isinstance(t.value, cst.Name) and t.value.value == "self"):
                _record_attr(info, cls, t.attr.value, node.value)

        def visit_Call(self, node: cst.Call) -> None:
            name = dotted_name(node.func) or ""
            if name.endswith("register_buffer") or name.endswith("register_parameter"):
                if node.args and isinstance(node.args[0].value, cst.SimpleString):
                    cls.tensor_attrs.add(node.args[0].value.evaluated_value)

    walk(init, SelfAssigns())


def _record_attr(info: ModuleInfo, cls: ClassInfo, attr: str, value: cst.BaseExpression) -> None:
    if isinstance(value, (cst.Integer, cst.Float, cst.SimpleString, cst.Name)) and (
        not isinstance(value, cst.Name) or value.value in ("True", "False", "None")
    ):
        cls.scalar_attrs.add(attr)
        if isinstance(value, (cst.Integer, cst.Float)):
            cls.numeric_attrs.add(attr)
        return
    called = _called_classes(info, value)
    if isinstance(value, cst.Call):
        head = info.qualify(dotted_name(value.func) or "")
        if head in TENSOR_FACTORIES or head.endswith(".Parameter"):
            cls.tensor_attrs.add(attr)
            return
    if called:
        cls.submodules[attr] = called


def build_module_info(path: Path, tree: cst.Module, source: str = "", name: str | None = None) -> ModuleInfo:
    """Index one parsed module (`source` is its text, for cheap pre-filters)."""
    info = ModuleInfo(path=path, name=name or module_name_for(path), tree=tree, source=source)
    for stmt in tree.body:
        _index_statement(info, stmt)
    if "global " in source:
        info.rebound_globals = _rebound_scalar_globals(tree)
    for fname, fn in info.functions.items():
        if DISABLE_DECORATORS & set(decorator_names(info, fn)):
            info.disabled.add(f"{info.name}.{fname}")
    for cls in info.classes.values():
        for mname, fn in cls.methods.items():
            if DISABLE_DECORATORS & set(decorator_names(info, fn)):
                info.disabled.add(f"{cls.qualname}.{mname}")
    return info


def _rebound_scalar_globals(tree: cst.Module) -> set[str]:
    """Module-level names bound to a number/str/bool literal that are re-bound later:
    assigned at module level more than once, or declared `global` in a function."""
    literal_names: dict[str, int] = {}
    for stmt in tree.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign):
                    for t in small.targets:
                        if isinstance(t.target, cst.Name):
                            name = t.target.value
                            is_literal = isinstance(small.value, (cst.Integer, cst.Float, cst.SimpleString)) or (
                                isinstance(small.value, cst.Name) and small.value.value in ("True", "False"))
                            if is_literal or name in literal_names:
                                literal_names[name] = literal_names.get(name, 0) + 1
    if not literal_names:
        return set()
    declared: set[str] = set()
    for node in iter_nodes(tree, cst.Global):
        declared.update(n.name.value for n in node.names)
    return {n for n, count in literal_names.items() if count > 1 or n in declared}


def _index_statement(info: ModuleInfo, stmt: cst.CSTNode) -> None:
    if isinstance(stmt, cst.SimpleStatementLine):
        for small in stmt.body:
            if isinstance(small, (cst.Import, cst.ImportFrom)):
                _collect_imports(info, small)
            elif isinstance(small, cst.Assign):
                for target in small.targets:
                    if isinstance(target.target, cst.Name):
                        name = target.target.value
                        info.module_vars[name] = small.value
                        _note_disable_assignment(info, name, small.value)
            elif isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                if small.value is not None:
                    info.module_vars[small.target.value] = small.value
    elif isinstance(stmt, cst.FunctionDef):
        info.functions[stmt.name.value] = stmt
    elif isinstance(stmt, cst.ClassDef):
        info.classes[stmt.name.value] = _class_info(info, stmt)
    elif isinstance(stmt, (cst.If, cst.Try)):
        # `try: import x except ImportError: ...` and `if TYPE_CHECKING:` blocks
        for block in _blocks(stmt):
            for inner in block:
                _index_statement(info, inner)


def _blocks(stmt: cst.If | cst.Try) -> list:
    blocks = [stmt.body.body]
    if isinstance(stmt, cst.If) and stmt.orelse is not None:
        orelse = stmt.orelse
        blocks.append(orelse.body.body if isinstance(orelse, cst.Else) else [orelse])
    if isinstance(stmt, cst.Try):
        blocks.extend(h.body.body for h in stmt.handlers)
    return blocks


def _note_disable_assignment(info: ModuleInfo, name: str, value: cst.BaseExpression) -> None:
    """`f = torch.compiler.disable(g)` makes `f` a disabled function."""
    if isinstance(value, cst.Call):
        callee = info.qualify(dotted_name(value.func) or "")
        if callee in DISABLE_DECORATORS:
            info.disabled.add(f"{info.name}.{name}")


@dataclass
class ProjectIndex:
    """All scanned modules, by dotted name, with lookups of qualified functions and classes."""

    modules: dict[str, ModuleInfo] = field(default_factory=dict)

    def add(self, info: ModuleInfo) -> None:
        """Register a module; a later module with the same dotted name keeps both reachable."""
        key = info.name
        if key in self.modules and self.modules[key].path != info.path:
            key = f"{key}@{info.path}"
        self.modules[key] = info

    def _split(self, qualname: str) -> tuple[ModuleInfo, str] | None:
        parts = qualname.split(".")
        for i in range(len(parts) - 1, 0, -1):
            mod = self.modules.get(".".join(parts[:i]))
            if mod is not None:
                return mod, ".".join(parts[i:])
        return None

    def lookup_function(self, qualname: str) -> tuple[ModuleInfo, FunctionNode] | None:
        """A module-level function by qualified name, following re-exports one level."""
        hit = self._split(qualname)
        if hit is None:
            return None
        mod, rest = hit
        if rest in mod.functions:
            return mod, mod.functions[rest]
        if rest in mod.imports and mod.imports[rest] != qualname:
            return self.lookup_function(mod.imports[rest])
        return None

    def lookup_class(self, qualname: str) -> tuple[ModuleInfo, ClassInfo] | None:
        """A class by qualified name, following re-exports one level."""
        hit = self._split(qualname)
        if hit is None:
            return None
        mod, rest = hit
        if rest in mod.classes:
            return mod, mod.classes[rest]
        if rest in mod.imports and mod.imports[rest] != qualname:
            return self.lookup_class(mod.imports[rest])
        return None

    def is_disabled(self, qualname: str) -> bool:
        """Whether `qualname` names a `torch.compiler.disable`d function in the project."""
        return any(qualname in m.disabled for m in self.modules.values())

    def method(self, cls_qualname: str, name: str, _depth: int = 0) -> tuple[ModuleInfo, ClassInfo, FunctionNode] | None:
        """Find method `name` on a class or its project base classes (MRO by depth-first)."""
        hit = self.lookup_class(cls_qualname)
        if hit is None or _depth > 20:
            return None
        mod, cls = hit
        if name in cls.methods:
            return mod, cls, cls.methods[name]
        for base in cls.bases:
            found = self.method(base, name, _depth + 1)
            if found:
                return found
        return None

    def numeric_attrs(self, cls_qualname: str, _depth: int = 0) -> set[str]:
        """Attributes `__init__` binds to int/float literals, including project bases."""
        hit = self.lookup_class(cls_qualname)
        if hit is None or _depth > 20:
            return set()
        found = set(hit[1].numeric_attrs)
        for base in hit[1].bases:
            found |= self.numeric_attrs(base, _depth + 1)
        return found

    def class_attr_kinds(self, cls_qualname: str, _depth: int = 0) -> tuple[set[str], set[str], dict[str, list[str]]]:
        """(tensor attrs, scalar attrs, submodules) of a class including project bases."""
        hit = self.lookup_class(cls_qualname)
        if hit is None or _depth > 20:
            return set(), set(), {}
        _, cls = hit
        tensors, scalars, subs = set(cls.tensor_attrs), set(cls.scalar_attrs), dict(cls.submodules)
        for base in cls.bases:
            t, s, m = self.class_attr_kinds(base, _depth + 1)
            tensors |= t
            scalars |= s
            for k, v in m.items():
                subs.setdefault(k, v)
        return tensors, scalars, subs
