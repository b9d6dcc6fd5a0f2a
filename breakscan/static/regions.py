"""Compile regions: which functions Dynamo will trace, and the call chain from each root.

Roots: functions decorated with `torch.compile`, targets of `torch.compile(...)` in every
applied form (`torch.compile(fn, mode=...)`, `torch.compile(mode=...)(fn)`,
`self.f = torch.compile(self.f)`, `model.compile()`), callables yielded by
`breakscan_examples()`, and (mode `modules`) every `nn.Module.forward`. From each root the
region follows calls to project functions, methods (`self.m()`, `super().m()`), and submodules
built in `__init__`, across files; functions passed in (by position or keyword) to a function
that calls them or to `checkpoint`; property getters and setters and project `__setattr__` run
by attribute access; and the branches of `torch.cond` / bodies of `while_loop`, marked `under`
that operator (a break there is an error, not a graph break). Functions wrapped by `torch.compiler.disable` (decorator,
assignment, `self.f = disable(self.f)`, a disabled class) end a region; with `recursive=False`
only that frame is skipped and its callees are still traced; `nonstrict_trace`,
`allow_in_graph`, `assume_constant_result` and `leaf_function` end it too (Dynamo calls them
without tracing their bodies). Works on the `ast` index summaries.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from itertools import chain

from breakscan.static.index import (
    PROPERTY_DECORATORS,
    CallRef,
    ClassInfo,
    FunctionInfo,
    ModuleInfo,
    ProjectIndex,
)

# How many files deep call-site inference reads a called function's body with a call's arguments
# (checks.call_sites `_returns_in_context` across files): bounds the work and cycles; the cache
# keys a file on the files within that depth (engine._callee_inputs).
RETURN_READ_DEPTH = 4
# How many caller files beyond the first call-site inference joins for a parameter (a helper
# called by a method that a compiled function in a third file calls: `valid(x)` ->
# `model.tokens(x)` -> `to_mask(x)`); the cache keys a file on those callers (engine._caller_inputs).
PARAM_READ_DEPTH = 2

# Torch functions that call the function passed at these positions and Dynamo traces its body
# there: a graph break in a checkpointed body is reported at the body's line (measured on 2.13,
# use_reentrant True and False).
TRACED_ARGUMENTS = {"torch.utils.checkpoint.checkpoint": (0,)}
# Function transforms whose function argument Dynamo traces in place (as functorch higher-order
# ops): a break inside is an ordinary graph break at the body's line, not an error (measured on
# 2.13 with `print` in the body of each: vmap, grad, grad_and_value, jacrev, jacfwd, hessian, vjp,
# jvp); the eager transform then calls the body as a frame of its own, which Dynamo refuses
# ("Unsupported functorch tracing attempt", GB0149: BRK417).
FUNCTION_TRANSFORMS = {
    f"{prefix}.{name}": (0,)
    for prefix in ("torch.func", "functorch")
    for name in ("vmap", "grad", "grad_and_value", "jacrev", "jacfwd", "hessian", "vjp", "jvp", "linearize")
} | {"torch.vmap": (0,), "torch._functorch.apis.vmap": (0,), "torch._functorch.eager_transforms.grad": (0,)}
# Higher-order operators whose function arguments (at these positions) Dynamo traces as subgraphs
# it cannot split: a graph break inside them is an error, the compiled call raises
# UncapturedHigherOrderOpError (measured on 2.13 with `.item()` and `print` in a branch or body).
HIGHER_ORDER_BRANCHES = {
    "torch.cond": (1, 2), "torch._higher_order_ops.cond": (1, 2), "torch._higher_order_ops.cond.cond": (1, 2),
    "functorch.experimental.control_flow.cond": (1, 2), "torch.while_loop": (0, 1),
    "torch._higher_order_ops.while_loop": (0, 1), "torch._higher_order_ops.while_loop.while_loop": (0, 1),
}

RegionKey = tuple[str, str, int]  # (module path, function qualname, occurrence)
Target = tuple[ModuleInfo, "ClassInfo | None", FunctionInfo]  # a function a call runs, with its class


@dataclass(frozen=True)
class Region:
    """A function inside a compile region: where it is and how a root reaches it."""

    module: ModuleInfo
    cls: ClassInfo | None
    function: FunctionInfo
    chain: tuple[str, ...]  # names from the root, root first
    dispatch: ClassInfo | None = None  # the class of `self` when a subclass of `cls` (inherited methods)
    under: str = ""  # the higher-order operator (`torch.cond`) whose branch or body it runs in, if any

    @property
    def key(self) -> RegionKey:
        """Identifies the function across the ast index and the libcst tree."""
        return (str(self.module.path), self.function.qualname, self.function.occurrence)

    @property
    def name(self) -> str:
        """`Class.method` or `function`."""
        return self.function.qualname


def _getter(found: Target | None) -> Target | None:
    """`found` when it is a property getter (`@property`, `functools.cached_property`), else None."""
    return found if found and PROPERTY_DECORATORS & set(found[2].decorators) else None


def _is_module_class(cls: ClassInfo) -> bool:
    return "forward" in cls.methods and bool(cls.bases)


class RegionFinder:
    """Computes the regions of a whole project index; see the module docstring."""

    def __init__(self, index: ProjectIndex, mode: str = "modules") -> None:
        if mode not in ("modules", "explicit"):
            raise ValueError(f"regions mode must be 'modules' or 'explicit', not {mode!r}")
        self.index = index
        self.mode = mode
        self.regions: dict[RegionKey, Region] = {}
        self._queue: deque[Region] = deque()
        self._skipped: set[RegionKey] = set()  # disable(recursive=False) frames already passed through
        self._contexts: set[tuple[RegionKey, str]] = set()  # (function, class of `self`) followed
        # Visible calls between traced functions: callee key -> keys of the region functions
        # whose calls (`f(x)`, `mod.f(x)`, `self.m(x)`, `super().m(x)`) reach it.
        self.callers: dict[RegionKey, set[RegionKey]] = {}
        # methods a traced call reaches by name (`Meter.compute`, a local instance's `meter.compute()`
        # as the index records it): call_sites reads their bodies across files (engine._callee_files)
        self.name_called_methods: set[RegionKey] = set()
        self.transform_bodies: dict[RegionKey, str] = {}  # function passed to a FUNCTION_TRANSFORMS op -> the op
        # function key -> its parameters that hold a `str` enum member in some traced call, from every
        # caller file (traced_callers stops at a few): `look_up_option(mode, BlendMode)` with `mode` a
        # root's parameter defaulting to `BlendMode.CONSTANT` (`_propagate_members`, BRK247)
        self.member_params: dict[RegionKey, set[str]] = {}
        self._param_flows: list[tuple[RegionKey, str, RegionKey, str]] = []  # (caller, its param, callee, param)
        self._under = ""  # `under` of the region being expanded: its callees run under the same operator

    def compute(self) -> dict[RegionKey, Region]:
        """Every function Dynamo will trace, by RegionKey."""
        for info in list(self.index.modules.values()):
            self._roots(info)
        self._functions_passed_to_roots()
        while self._queue:
            self._expand(self._queue.popleft())
        self._propagate_members()
        return self.regions

    def _add(self, module: ModuleInfo, cls: ClassInfo | None, fn: FunctionInfo, chain: tuple[str, ...],
             dispatch: ClassInfo | None = None, under: str = "") -> None:
        """Add `fn` (defined in `cls`, if a method) as traced, `self` an instance of `dispatch`
        (a subclass of `cls`; None: `cls` itself); `under`: the higher-order operator it runs in
        (default: that of the region being expanded).

        A function is one region (the first time it is reached), but its calls are followed once
        per class of `self`: an inherited method's `self.m()` runs the instance's override."""
        region = Region(module, cls, fn, chain, dispatch if dispatch is not cls else None, under or self._under)
        self_cls = region.dispatch or cls
        context = (region.key, self_cls.qualname if self_cls is not None else "")
        if context in self._contexts:
            return
        owner = f"{module.name}.{fn.qualname}"  # where it is defined, as disable records it
        if self.index.is_untraced(owner):
            return
        if self.index.is_disabled(owner):
            if self.index.is_nonrecursive(owner) and region.key not in self._skipped:
                self._skipped.add(region.key)  # its frame is skipped, its callees are frames Dynamo traces
                self._expand_calls(region)
            return
        self._contexts.add(context)
        self.regions.setdefault(region.key, region)
        self._queue.append(region)

    def traced_callers(self, max_files: int = 4) -> dict[RegionKey, tuple[RegionKey, ...]]:
        """For each region function, the region functions whose visible calls reach it (sorted),
        when they lie in at most `max_files` files other than its own: call-site inference
        (checks.call_sites) parses those files too, so a function called from all over a
        project is left to its annotations. Call after `compute`."""
        out: dict[RegionKey, tuple[RegionKey, ...]] = {}
        for callee, callers in self.callers.items():
            if callee not in self.regions:
                continue
            others = {path for path, _, _ in callers} - {callee[0]}
            if len(others) <= max_files:
                out[callee] = tuple(sorted(callers))
        return out

    def _roots(self, info: ModuleInfo) -> None:
        for cls, fn in info.all_functions():
            if any(self.index.is_compile(d) for d in fn.decorators):
                self._add(info, cls, fn, (fn.qualname,))
        if self.mode == "modules":
            for cls in info.classes.values():
                if _is_module_class(cls):
                    fn = cls.methods["forward"]
                    self._add(info, cls, fn, (fn.qualname,))
                elif cls.bases:  # a module class inheriting its `forward`: calls dispatch on it
                    found = self.index.method(cls.qualname, "forward")
                    if found is not None and _is_module_class(found[1]):
                        self._add(*found, (found[2].qualname,), dispatch=cls)
        for target in [*info.compile_targets, *info.example_targets]:
            self._target(info, target)

    def _functions_passed_to_roots(self) -> None:
        """Project functions passed by name to a compiled function where it is called, at module
        level or in any function (`apply_twice(noisy_act, x)`), when the compiled function calls
        the parameter they bind: Dynamo traces them inside its frame (measured on 2.13: a `print`
        in the passed function breaks there)."""
        roots = {key: region for key, region in self.regions.items() if len(region.chain) == 1}
        names = {region.function.name for region in roots.values()}
        for info in list(self.index.modules.values()):
            for call in chain(info.top_calls, *(fn.calls for _, fn in info.all_functions())):
                if not (call.args or call.kwargs) or call.kind != "name" or call.name.rsplit(".", 1)[-1] not in names:
                    continue
                for mod, cls, fn in self.resolve_name(info.qualify(call.name)):
                    root = roots.get((str(mod.path), fn.qualname, fn.occurrence))
                    if root is None:
                        continue
                    for passed in self.passed_functions(info, None, call, cls, fn):
                        self._add(*passed[:3], (fn.qualname, passed[2].qualname))

    def _target(self, info: ModuleInfo, target: str) -> None:
        for mod, cls, fn in self.resolve_target(info, target):
            self._add(mod, cls, fn, (fn.qualname,))

    def resolve_target(self, info: ModuleInfo, target: str, _depth: int = 0) -> list[Target]:
        """What a compile target of `info` (written as `name`, `var.attr`, `Class()` or
        `self:Class.attr`, `self.attr` inside Class) runs; an attribute is a method or a
        submodule (its `forward`)."""
        if target.endswith("()"):  # `torch.compile(Net(d))`, `torch.compile(build_model(cfg))`
            factory = self.index.lookup_function(info.qualify(target[:-2]))
            if factory is not None:  # what the factory returns is compiled, not the factory
                built, closure = factory[1].returned_class, factory[1].returned_def
                if closure:  # `def make(s): def step(x): ...; return step`
                    return self.resolve_name(f"{factory[0].name}.{closure}", _depth)
                return self.resolve_name(built, _depth) if built else []
            return self.resolve_name(info.qualify(target[:-2]), _depth)
        if target.startswith("self:"):
            cls_name, _, attr = target[5:].partition(".")
            owner = info.classes.get(cls_name)
            return self.resolve_call(info, owner, CallRef("self", attr)) if owner else []
        head, _, attr = target.partition(".")
        cls_q = info.var_classes.get(head) or (
            self.index.built_class(info.var_factory_calls[head]) if head in info.var_factory_calls else "")
        if cls_q:  # `model = Net(d)`, or `model = build(cfg)` with build returning a Net
            if attr in ("", "forward"):  # a module's `forward`; an instance of another class: its `__call__`
                found = self.index.method(cls_q, "forward") or (self.index.instance_call(cls_q) if not attr else None)
                return [found] if found else []
            hit = self.index.lookup_class(cls_q)
            return self.resolve_call(info, hit[1], CallRef("self", attr)) if hit and "." not in attr else []
        return self.resolve_name(info.qualify(target), _depth)

    def resolve_name(self, qual: str, _depth: int = 0) -> list[Target]:
        """What calling the qualified name `qual` runs: a project function, a class's `forward`
        (a module called), `Class.method`, or what a compiled alias (`fast = torch.compile(step)`)
        compiles; [] for anything outside the project."""
        fn = self.index.lookup_function(qual)
        if fn:
            return [(fn[0], None, fn[1])]
        if self.index.lookup_class(qual):
            found = self.index.method(qual, "forward")
            return [found] if found else []
        owner, _, meth = qual.rpartition(".")  # Class.method
        found = self.index.method(owner, meth) if owner else None
        if found:
            return [found]
        mod = self.index.modules.get(owner)
        if mod is None:
            found = self.index.instance_method(qual)  # `model.embed(x)`, `model = Encoder()`
            return [found] if found else []
        if meth in mod.registries:  # `criterion = LOSSES[name]`, then `criterion(x, y)`
            return self.registry_functions(qual)
        if meth in mod.compiled_aliases and _depth < 5:
            return self.resolve_target(mod, mod.compiled_aliases[meth], _depth + 1)
        cls_q = mod.module_vars.get(meth)  # `scorer = Scorer()` at module level, then `scorer(x)`
        if cls_q and self.index.lookup_class(cls_q):
            found = self.index.instance_call(cls_q)
            return [found] if found else []
        return []

    def registry_functions(self, qualname: str) -> list[Target]:
        """ProjectIndex.registry_functions of the registry `qualname`, as call targets."""
        return [(mod, None, fn) for mod, fn in self.index.registry_functions(qualname)]

    def submodule_forwards(self, cls: ClassInfo) -> list[Target]:
        """The `forward`s of the project classes `cls` (or a base) builds in `__init__`."""
        _, _, subs = self.index.class_attr_kinds(cls.qualname)
        forwards = (self.index.method(q, "forward") for classes in subs.values() for q in classes)
        return [f for f in forwards if f]

    def resolve_call(self, module: ModuleInfo, cls: ClassInfo | None, call: CallRef,
                     dispatch: ClassInfo | None = None) -> list[Target]:
        """The project functions a call made in `module` (inside a method of `cls`, if any)
        reaches: `self.m()`, a submodule's `forward` for `self.sub(x)`, `super().m()` (first
        base that has it), or a name (resolve_name). `dispatch`: the class of `self` when it is
        a subclass of `cls` (`self.m()` and `self.sub` are looked up on it)."""
        if call.kind == "name":
            if cls is not None and call.name.startswith("self.") and call.name.count(".") == 2:
                return self.submodule_methods(dispatch or cls, call.name)
            return self.resolve_name(module.qualify(call.name))
        if call.kind == "registry":  # `LOSSES[key](...)`: any of its functions (the key decides at run time)
            return self.registry_functions(module.qualify(call.name))
        if cls is None:
            return []
        if call.kind == "self":  # on the class of `self`: an inherited method's `self.m()` runs its override
            found = self.index.method((dispatch or cls).qualname, call.name)
            if found:
                return [found]
            _, _, subs = self.index.class_attr_kinds((dispatch or cls).qualname)
            called = [f for f in (self.index.instance_call(q) for q in subs.get(call.name, ())) if f]
            return called or self._bound_callables(module, cls, dispatch, call.name)
        if call.kind == "super":
            for base in cls.bases:
                found = self.index.method(base, call.name)
                if found:
                    return [found]
        return []

    def _bound_callables(self, module: ModuleInfo, cls: ClassInfo, dispatch: ClassInfo | None,
                         attr: str) -> list[Target]:
        """`self.<attr>(...)` where a method bound `self.<attr>` to a project function, a
        `functools.partial` of one, or another method (ClassInfo.callable_attrs), or to what the
        project's calls of the class pass for an `__init__` parameter (`Net(hinge)`,
        ProjectIndex.passed_functions)."""
        out: list[Target] = []
        for bound in self.index.callable_attr((dispatch or cls).qualname, attr):
            if bound.startswith("arg:__init__:"):  # `self.loss_fn = loss_fn`: what `Net(hinge)` passes
                for qualname in self.index.init_bound_functions(dispatch or cls, bound):
                    out += self.resolve_name(qualname)
            elif bound.startswith("arg:"):  # a setter's parameter: the names `self.<setter>(...)` passes
                _, setter, position = bound.split(":")
                for caller in (dispatch or cls).methods.values():
                    for c in caller.calls:
                        if c.kind == "self" and c.name == setter and int(position) < len(c.args) \
                                and c.args[int(position)] and not c.args[int(position)].startswith("self."):
                            out += self.resolve_name(module.qualify(c.args[int(position)]))
            elif bound.startswith("self."):
                found = self.index.method((dispatch or cls).qualname, bound[5:])
                out += [found] if found else []
            elif bound.startswith("reg:"):  # `self.loss_fn = LOSSES[name]`
                out += self.registry_functions(bound[4:])
            else:
                out += self.resolve_name(bound)
        return out

    def submodule_methods(self, cls: ClassInfo, name: str) -> list[Target]:
        """`self.sub.m()` (and `layer.m()` in `for layer in self.layers`, which the index writes
        so): method `m` of each project class `__init__` builds into `self.sub` (an
        `nn.ModuleList` of them included). Dynamo inlines it like any method (measured on 2.13:
        a `print` there breaks in the caller's trace)."""
        _, attr, meth = name.split(".")
        _, _, subs = self.index.class_attr_kinds(cls.qualname)
        found = (self.index.method(q, meth) for q in subs.get(attr, ()))
        return [f for f in found if f]

    def _expand(self, region: Region) -> None:
        self._under = region.under
        if self.regions.get(region.key) is not region:  # followed again for another class of `self`:
            self._expand_dispatch(region)  # only what depends on that class
            return
        for decorator in region.function.decorators:  # Dynamo traces a project decorator's wrapper
            found = self.index.lookup_function(decorator)
            if found and not self.index.is_registrar(decorator):  # a registrar gives the function back: no wrapper
                mod, fn = found
                self._add(mod, None, fn, region.chain + (fn.qualname,))
        if region.cls is not None:
            for mod, cls, fn in self.submodule_forwards(region.dispatch or region.cls):
                self._add(mod, cls, fn, region.chain + (fn.qualname,))
        self._expand_calls(region)
        self._expand_properties(region)
        self._expand_stores(region)

    def _note_param_flows(self, region: Region, call: CallRef, module: ModuleInfo, cls: ClassInfo | None,
                          fn: FunctionInfo) -> None:
        """Record the caller parameters that `call` (made in `region`'s function) passes on by name
        into parameters of `fn`: by keyword, or by position into a module-level function, a static
        method or a method through `self.m(...)` (`_param_flows`, for `_propagate_members`)."""
        params = set(region.function.params) | set(region.function.member_defaults)
        if not (call.args or call.kwargs) or not params:
            return
        callee = (str(module.path), fn.qualname, fn.occurrence)
        flows = [(keyword, name) for keyword, name in call.kwargs if name in params]
        static = any(d.rpartition(".")[2] == "staticmethod" for d in fn.decorators)
        offset = 0 if cls is None or static else 1 if call.kind in ("self", "super") else -1
        if offset >= 0:
            flows += [(fn.params[i + offset], name) for i, name in enumerate(call.args)
                      if name in params and i + offset < len(fn.params)]
        for param, name in flows:
            self._param_flows.append((region.key, name, callee, param))

    def _propagate_members(self) -> None:
        """Fill `member_params`: a parameter of a compile root that defaults to a member of a project
        `str` enum (ProjectIndex.is_str_enum: the root's caller is outside, so the default is what
        runs unless it passes one) holds a member; so does a parameter a traced call passes such a
        parameter into, to a fixed point. Dynamo inlines each call with the member, so a `str` method
        on the parameter breaks (GB0156). A non-root function's own default is not taken: its traced
        callers may always pass a string."""
        members: dict[RegionKey, set[str]] = {}
        for key, region in self.regions.items():
            if len(region.chain) == 1:
                found = {param for param, default in region.function.member_defaults.items()
                         if self.index.is_str_enum(default.rpartition(".")[0])}
                if found:
                    members[key] = found
        changed = bool(members)
        while changed:
            changed = False
            for caller, name, callee, param in self._param_flows:
                if name in members.get(caller, ()) and param not in members.setdefault(callee, set()):
                    members[callee].add(param)
                    changed = True
        self.member_params = {key: params for key, params in members.items() if params}

    def _expand_dispatch(self, region: Region) -> None:
        """The calls on `self` of a function reached again with `self` of another class: its
        submodules, `self.m()` / `super().m()` and property getters (name calls resolve the same)."""
        if region.cls is not None:
            for mod, cls, fn in self.submodule_forwards(region.dispatch or region.cls):
                self._add(mod, cls, fn, region.chain + (fn.qualname,))
        for call in region.function.calls:
            if call.kind != "name":
                for mod, cls, fn in self.resolve_call(region.module, region.cls, call, region.dispatch):
                    self._add(mod, cls, fn, region.chain + (fn.qualname,), region.dispatch or region.cls)
                    self.callers.setdefault((str(mod.path), fn.qualname, fn.occurrence), set()).add(region.key)
                    self._note_param_flows(region, call, mod, cls, fn)
        self._expand_properties(region)
        self._expand_stores(region)

    def _expand_properties(self, region: Region) -> None:
        """Property getters of the region's class read as `self.x` in its function, of the
        project classes an attribute holds read as `self.sub.x` (`self.scheduler.init_noise_sigma`:
        Dynamo runs the getter there), and of a module-level instance read as `sched.x`
        (`sched = Scheduler()` in this module or imported; ProjectIndex.instance_method)."""
        for read in sorted(region.function.global_reads):
            name, _, attr = read.partition(".")
            if name in region.function.params:
                continue  # a parameter of the same name
            if found := _getter(self.index.instance_method(f"{region.module.qualify(name)}.{attr}")):
                self._add(*found, region.chain + (found[2].qualname,))
        self_cls = region.dispatch or region.cls
        if self_cls is None:
            return
        for name in sorted(region.function.self_reads):  # sorted: chains stable across runs
            if found := self._getter(self_cls.qualname, name):
                self._add(*found, region.chain + (found[2].qualname,), dispatch=self_cls)
        held = self.index.class_attr_kinds(self_cls.qualname)[2] if region.function.sub_reads else {}
        for read in sorted(region.function.sub_reads):
            sub, _, name = read.partition(".")
            for cls_q in held.get(sub, ()):
                if found := self._getter(cls_q, name):
                    self._add(*found, region.chain + (found[2].qualname,))

    def _getter(self, cls_qualname: str, name: str) -> Target | None:
        """The property getter `name` of the project class `cls_qualname` or its project bases, or None."""
        return _getter(self.index.method(cls_qualname, name))

    def _expand_stores(self, region: Region) -> None:
        """What `obj.attr = x` in the region's function runs: a property setter of `obj`'s class
        (`@attr.setter`), else its project `__setattr__` (nn.Module's own is torch's). Dynamo traces
        both (measured on 2.13: a `print` in either breaks, for `self`, a submodule and a local)."""
        self_cls = region.dispatch or region.cls
        for store in sorted(region.function.attr_stores):
            receiver, _, attr = store.rpartition(".")
            for cls_q in self._store_classes(region, receiver, self_cls):
                setter = self.index.method(cls_q, attr)
                if setter is not None and any(d.endswith(".setter") for d in setter[2].decorators):
                    self._add(*setter, region.chain + (setter[2].qualname,), dispatch=None)
                    continue
                found = self.index.method(cls_q, "__setattr__")
                if found is not None:
                    self._add(*found, region.chain + (found[2].qualname,))

    def _store_classes(self, region: Region, receiver: str, self_cls: ClassInfo | None) -> list[str]:
        """The project classes an attribute store's receiver (`self`, `self.sub`, a name bound to
        `Class(...)` in its module or the module it is imported from) is an instance of."""
        if receiver == "self":
            return [self_cls.qualname] if self_cls is not None else []
        head, _, rest = receiver.partition(".")
        if head == "self":
            if self_cls is None or "." in rest:
                return []
            return list(self.index.class_attr_kinds(self_cls.qualname)[2].get(rest, ()))
        if "." in receiver:
            return []
        module = region.module
        if receiver in module.var_classes:
            return [module.var_classes[receiver]]
        owner, _, name = module.qualify(receiver).rpartition(".")
        mod = self.index.modules.get(owner)
        cls_q = mod.module_vars.get(name) if mod is not None else None
        return [cls_q] if cls_q and self.index.lookup_class(cls_q) else []

    def constructed_module_init(self, module: ModuleInfo, call: CallRef) -> tuple[Target, ClassInfo] | None:
        """`Block(4)` in traced code, `Block` a project `nn.Module` class (it or a project base has
        `forward`): Dynamo traces the class's `__init__` (its own or a project base's) with `self` a
        `Block`, and falls back at the `super().__init__()` that reaches `nn.Module` (GB0119,
        measured on 2.13). Returns that `__init__` and the class built, or None."""
        if call.kind != "name":
            return None
        qual = module.qualify(call.name)
        hit = self.index.lookup_class(qual)
        if hit is None or not hit[1].bases or self.index.method(qual, "forward") is None:
            return None
        init = self.index.method(qual, "__init__")
        return (init, hit[1]) if init else None

    def _expand_calls(self, region: Region) -> None:
        for call in region.function.calls:
            built = self.constructed_module_init(region.module, call)
            if built is not None:
                (mod, cls, fn), self_cls = built
                self._add(mod, cls, fn, region.chain + (fn.qualname,), self_cls)
            if call.args and call.kind == "name":
                qual = region.module.qualify(call.name)
                under = qual if qual in HIGHER_ORDER_BRANCHES else ""
                positions = TRACED_ARGUMENTS.get(qual, ()) or FUNCTION_TRANSFORMS.get(qual, ()) \
                    or HIGHER_ORDER_BRANCHES.get(qual, ())
                for position in positions:
                    arg = call.args[position] if position < len(call.args) else ""
                    for mod, cls, fn in self._resolve_argument(region.module, region.cls, arg):
                        self._add(mod, cls, fn, region.chain + (fn.qualname,), under=under)
                        if qual in FUNCTION_TRANSFORMS:
                            self.transform_bodies.setdefault((str(mod.path), fn.qualname, fn.occurrence), qual)
            for mod, cls, fn in self._local_def(region, call) or self.resolve_call(
                    region.module, region.cls, call, region.dispatch):
                # `self.m()` and `super().m()` keep the class of `self`; `obj.m()` takes the class
                # of `obj` when `m` is inherited; other calls start afresh.
                if call.kind in ("self", "super"):
                    dispatches: list[ClassInfo | None] = [region.dispatch or region.cls]
                else:
                    dispatches = (self._receivers(region, call, fn) if call.kind == "name" else []) or [None]
                for dispatch in dispatches:
                    self._add(mod, cls, fn, region.chain + (fn.qualname,), dispatch)
                if region.key in self.regions:  # a traced caller (not a skipped frame)
                    self.callers.setdefault((str(mod.path), fn.qualname, fn.occurrence), set()).add(region.key)
                    self._note_param_flows(region, call, mod, cls, fn)
                    if call.kind == "name" and cls is not None:
                        self.name_called_methods.add((str(mod.path), fn.qualname, fn.occurrence))
                owner = f"{cls.qualname}.{fn.name}" if cls else f"{mod.name}.{fn.qualname}"
                stops = self.index.is_untraced(owner) or (
                    self.index.is_disabled(owner) and not self.index.is_nonrecursive(owner))
                if (call.args or call.kwargs) and not stops:
                    for passed in self.passed_functions(region.module, region.cls, call, cls, fn):
                        self._add(*passed[:3], region.chain + (fn.qualname, passed[2].qualname))

    def _receivers(self, region: Region, call: CallRef, fn: FunctionInfo) -> list[ClassInfo]:
        """The classes of the object a name call `obj.m()` is made on (`self.sub.m()`: the classes
        `__init__` stores in `self.sub`; `Class.m()`, as the index writes a local instance's call)
        that inherit `fn` as their `m` from a base: `self` is an instance of each there, so the
        inherited method's `self.check()` runs the subclass's override."""
        head, _, meth = call.name.rpartition(".")
        if not head:
            return []
        if head.startswith("self.") and head.count(".") == 1:
            owner = region.dispatch or region.cls
            classes = self.index.class_attr_kinds(owner.qualname)[2].get(head[5:], ()) if owner else ()
        else:
            classes = (region.module.qualify(head),)
        out = []
        for qualname in classes:
            hit = self.index.lookup_class(qualname)
            found = self.index.method(qualname, meth) if hit is not None else None
            if found is not None and found[2] is fn and found[1] is not hit[1]:
                out.append(hit[1])
        return out

    def _local_def(self, region: Region, call: CallRef) -> list[Target]:
        """`helper(x)` in a def nested in a test method, where `helper` is another def of that
        method (indexed with it: _Indexer.nested_def)."""
        scope = region.function.qualname.rpartition(".")[0]
        if region.cls is not None or not scope or call.kind != "name" or "." in call.name:
            return []
        found = self.index.lookup_function(f"{region.module.name}.{scope}.{call.name}")
        return [(found[0], None, found[1])] if found else []

    def passed_functions(self, module: ModuleInfo, caller_cls: ClassInfo | None, call: CallRef,
                         cls: ClassInfo | None, callee: FunctionInfo) -> list[Target]:
        """Project functions passed by name (`apply(helper, x)`, `apply(self.helper, x)`,
        `apply(x, fn=helper)`) to a project function `callee` (a method of `cls`, if any) that calls
        the parameter they bind, in a call written in `module` (inside `caller_cls`, if a method):
        Dynamo inlines `callee` and traces them there (measured on 2.13). A parameter only stored
        or returned adds nothing."""
        called = {c.name for c in callee.calls if c.kind == "name" and "." not in c.name}
        skip = 1 if cls is not None and callee.params[:1] == ["self"] else 0  # a bound method
        out: list[Target] = []
        for position, arg in enumerate(call.args):
            index = position + skip
            if not arg or index >= len(callee.params) or callee.params[index] not in called:
                continue
            out += self._resolve_argument(module, caller_cls, arg)
        for keyword, arg in call.kwargs:  # `apply(x, fn=helper)`: the parameter named so, if called
            if keyword in called:
                out += self._resolve_argument(module, caller_cls, arg)
        return out

    def _resolve_argument(self, module: ModuleInfo, cls: ClassInfo | None, arg: str) -> list[Target]:
        """The project function a name argument (`helper`, `self.helper`) of a call written in
        `module` (inside `cls`, if a method) names."""
        if not arg:
            return []
        if arg.startswith("self."):
            return self.resolve_call(module, cls, CallRef("self", arg[5:])) if cls else []
        return self.resolve_name(module.qualify(arg))
