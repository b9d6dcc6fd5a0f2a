"""Checks on calls: the catalog's `calls`, `tensor_methods` and `logger_methods` rules, scalar
conversions of tensors, tensor sizes, hooks, `print`, and calls of functions Dynamo does not trace."""

from __future__ import annotations

import libcst as cst

from breakscan.static.checks.binding import all_params
from breakscan.static.checks.call_patterns import CallPatternChecks
from breakscan.static.checks.tensor_hooks import outer_mutations
from breakscan.static.index import DISABLE_DECORATORS
from breakscan.static.syntax import dotted_name
from breakscan.static.tensors import TENSORISH, TRACED_RANDOM, T, is_super_call
from breakscan.static.walk import iter_nodes

# Deep copies: traced on a plain Python value, a break on a tensor (GB4198; 2.13 and 2.15).
DEEP_COPIES = {"copy.deepcopy", "dataclasses.asdict", "dataclasses.astuple"}
SCALAR_CONVERSIONS = {"int", "float", "bool", "complex", "math.floor", "math.ceil", "math.trunc",
                      "operator.index"}
# `math` functions that do not convert a tensor argument to a Python number: `math.prod` multiplies
# (traced); every other one (`math.isnan(t)`, `math.sqrt(t)`, `math.log(t)`...) reads `float(t)`,
# a data-dependent operator (GB0033, measured on 2.13 and 2.15 for 19 of them).
MATH_ON_TENSORS = {"math.prod"}
SIZE_METHODS = {"narrow", "new_zeros", "new_ones", "new_empty", "new_full", "view", "reshape", "expand",
                "repeat", "tile", "unflatten"}
SIZE_FACTORIES = {"torch.zeros", "torch.ones", "torch.empty", "torch.full", "torch.rand", "torch.randn",
                  "torch.randint", "torch.arange", "torch.linspace", "torch.eye",
                  # NumPy is traced as torch under Dynamo: a tensor size breaks the same way (GB0033)
                  "numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full", "numpy.arange",
                  "numpy.linspace", "numpy.eye"}
# NumPy functions with a data-dependent output shape: Dynamo traces NumPy as tensors, so they are
# `torch.nonzero`/`torch.unique` (GB0036, also on constant arrays; measured on 2.13 and 2.15), as is
# `np.where(cond)` with one argument.
NUMPY_DYNAMIC_SHAPE = {"numpy.nonzero", "numpy.flatnonzero", "numpy.argwhere", "numpy.unique"}
AS_TENSOR = {"torch.as_tensor", "torch.asarray"}  # of tensors: the fake-tensor run fails (BRK269)
# What makes a NumPy random generator object: Dynamo traces none of its methods (BRK271)
NUMPY_GENERATORS = {"numpy.random.default_rng", "numpy.random.RandomState", "numpy.random.Generator",
                    "numpy.random.mtrand.RandomState"}
# Functions whose pad widths must be Python ints (`F.pad(x, (0, n))`: a tensor `n` is read, GB0033).
PAD_FUNCTIONS = {"torch.nn.functional.pad"}
HOOK_METHODS = {"register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook",
                "register_full_backward_pre_hook", "register_backward_hook",
                "register_module_forward_hook"}
LOGGER_NAMES = {"logger", "log", "_logger", "LOGGER", "_LOGGER", "logging"}

# `.item()`, `.tolist()`... exist on tensors (and NumPy arrays, which Dynamo also traces as
# tensors), not on Python containers: they match a receiver of unknown type too.
DISTINCTIVE_TENSOR_METHODS = {"item", "tolist", "data_ptr", "nonzero", "masked_select", "argwhere",
                              "requires_grad_", "backward"}

# `str`'s own methods: called on a member of a `str` enum, Dynamo cannot trace them (GB0156)
STR_METHODS = frozenset(m for m in dir(str) if not m.startswith("_"))
# The methods of `x.untyped_storage()` Dynamo traces (2.13, 2.15); any other breaks (BRK274).
STORAGE_TRACED_METHODS = frozenset({"size", "resize_"})


def _class_name(node: cst.BaseExpression) -> bool:
    """`Fn` in `Fn.backward(ctx, g)`: a capitalized name is a class, not a tensor."""
    return isinstance(node, cst.Name) and node.value[:1].isupper()


class CallChecks(CallPatternChecks):
    """`visit_Call`: rule lookups by callee and by method, and the structural checks on calls."""

    # calls -------------------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        if self.region is None or self.env is None:
            return
        func = node.func
        if isinstance(func, cst.Attribute):
            meth = func.attr.value
            if meth == "requires_grad_" and self._clears_fresh_grad(node):
                return
            if self._numpy_generator(func.value):
                self._emit_check("numpy-generator-method", node)  # GB0156
                return
            if meth not in STORAGE_TRACED_METHODS and self._is_storage(func.value):
                self._emit_check("tensor-storage-use", node)  # GB0156 (GB0008 on 2.15)
                return
            if meth in self.rules.tensor_methods and (self.env.is_tensor(func.value) or (
                    meth in DISTINCTIVE_TENSOR_METHODS and self.env.kind(func.value) in (T.UNKNOWN, T.FOLDED)
                    and not _class_name(func.value))):
                for rule in self.rules.tensor_methods[meth]:
                    self._emit(rule, node)
                return
            if meth in self.rules.logger_methods and self._is_logger(func.value):
                for rule in self.rules.logger_methods[meth]:
                    self._emit(rule, node)
                return
            if meth in STR_METHODS and self.env.kind(func.value) is T.STR_ENUM:
                self._emit_check("str-enum-method", node)  # GB0156
                return
            if meth == "join" and self._joins_formatted_tensors(node, func):
                self._emit_check("join-formatted-tensors", node)
                return
            if meth in SIZE_METHODS and self.env.is_tensor(func.value):
                self._size_arguments(node)
            if meth in HOOK_METHODS and self._is_module_receiver(func.value):
                self._emit_check("hook-in-forward", node)
            if meth == "register_hook" and node.args and self.env.is_tensor(func.value) and (
                    self._computes(func.value) or self._callee_parameter(func.value)):
                self._tensor_hook(node.args[0].value)
            if meth == "apply" and self._duplicate_tensor_argument(node) and self._is_autograd_function(func.value):
                self._emit_check("autograd-duplicate-input", node)
            if meth == "__init__" and self._initialises_nn_module(func.value):
                self._pending_inits.append((node, self._breaks))  # emitted if the __init__ breaks
        if self._makes_disabled(node) or (isinstance(func, cst.Call) and self._makes_disabled(func)) or (
                isinstance(func, cst.Name) and self._disabled_locals and func.value in self._disabled_locals[-1]):
            self._emit_check("disabled-call", node)  # disable(fn) / disable(fn)(x) in the region
            return
        name = dotted_name(func)
        if name is None:
            return
        self._call_patterns(node, name)
        qual = self.info.qualify(name)
        if self._is_shadowed(name):
            return
        args = [a.value for a in node.args if not a.keyword and not a.star]
        if qual == "len" and len(args) == 1 and self._is_storage(args[0]):
            self._emit_check("tensor-storage-use", node)  # GB0088: the frame falls back
            return
        if not (qual == "print" and self._reordered_print(node)) and not (
                qual in DEEP_COPIES and len(args) == 1 and self._plain_copy(args[0])):
            # a deep copy of a plain Python value (a config dict, a dataclass) is traced (2.13, 2.15)
            for rule in self.rules.rules_for_call(qual):
                self._emit(rule, node)
        if qual in TRACED_RANDOM and not self.rules.rules_for_call(qual) and self.symbolic_random_call(node, self.env):
            self._emit_check("random-symbolic-argument", node)  # GB0007 under dynamic=True
        if qual in SIZE_FACTORIES:
            self._size_arguments(node)
        elif qual in PAD_FUNCTIONS:  # the widths only: the first argument is the padded tensor
            self._size_arguments(node, [cst.Arg(value=a.value) for i, a in enumerate(node.args) if not a.star and (
                (a.keyword is None and i == 1) or (a.keyword is not None and a.keyword.value == "pad"))])
        if qual in SCALAR_CONVERSIONS and len(args) == 1 and self.env.reads_as_tensor(args[0]):
            self._emit_check("scalar-conversion", node)
        elif qual.startswith("math.") and qual not in MATH_ON_TENSORS and any(
                self.env.is_tensor(a) and not self._only_guessed(a) for a in args):
            self._emit_check("scalar-conversion", node)  # `math.sqrt(t)` reads `float(t)`
        elif qual in ("str", "repr") and len(args) == 1 and self.env.is_tensor(args[0]):
            self._emit_check("tensor-str", node)
        elif qual == "range" and any(self.env.reads_as_tensor(a) for a in args):
            self._emit_check("tensor-range", node)
        elif qual == "slice" and any(self.env.reads_as_tensor(a) and not self._only_guessed(a) for a in args):
            self._emit_check("tensor-slice-bound", node)  # `slice(s, s + 2)`: the bound is read as `x[s:s + 2]`'s
        elif qual in ("any", "all") and len(node.args) == 1 and self._tensor_elements(args[0] if args else None):
            self._emit_check("tensor-branch", node)  # the builtin tests `bool()` of each element
        elif qual == "next" and args and self._is_passed_in(args[0]):
            self._emit_check("next-on-argument", node)
        elif (qual in ("torch.where", "numpy.where") and len(args) == 1 and not any(a.keyword for a in node.args)) \
                or qual in NUMPY_DYNAMIC_SHAPE:
            self._emit_check("where-one-arg", node)
        elif qual in AS_TENSOR and args and self._holds_tensors(args[0]):
            self._emit_check("as-tensor-of-tensors", node)  # GB4315: the fake-tensor run fails
        elif node.args and self.index.tensor_subclass_init_args(qual):
            self._emit_check("tensor-subclass-init", node)  # GB7312 (2.13) / GB0088 (2.15)
        elif qual == "setattr" and len(args) >= 2 and isinstance(args[1], cst.SimpleString) \
                and args[1].evaluated_value == "requires_grad":
            self._emit_check("requires-grad-set", node)
        if self._calls_disabled(func, qual):
            self._emit_check("disabled-call", node)
        elif self.index.is_disallowed(qual):
            self._emit_check("disallowed-call", node)

    def _settle_module_inits(self) -> None:
        """On leaving a region function: a `super().__init__()` noted there (`_initialises_nn_module`)
        is a frame fallback only when a graph break is predicted in the `__init__` (after the call
        or before it): an `__init__` Dynamo inlines without a break builds the module in the graph
        (measured on 2.13: a module without parameters is built without a break)."""
        pending, self._pending_inits = self._pending_inits, []
        for node, breaks_before in pending:
            if self._breaks > self._breaks_at_def or self._base_init_breaks():
                self._emit_check("module-built-in-region", node)

    def _base_init_breaks(self) -> bool:
        """Whether the `__init__` of a project base of the region's class (up its project MRO)
        calls something a call rule flags as a graph break (`nn.Linear(...)`, BRK303): the
        base's `__init__` then runs as a frame of its own, and so does this one (both fall back
        at their `super().__init__()`, measured on 2.13)."""
        assert self.region is not None and self.region.cls is not None
        stack, seen = list(self.region.cls.bases), set()
        while stack:
            base = stack.pop()
            hit = self.index.lookup_class(base)
            if hit is None or base in seen:
                continue
            seen.add(base)
            module, cls = hit
            init = cls.methods.get("__init__")
            if init is not None and any(
                    rule.kind.value == "graph-break" for call in init.calls if call.kind == "name"
                    for rule in self.rules.rules_for_call(module.qualify(call.name))):
                return True
            stack.extend(cls.bases)
        return False

    def _initialises_nn_module(self, receiver: cst.BaseExpression) -> bool:
        """`super().__init__()` (or `nn.Module.__init__(self)`) in the traced `__init__` of a
        project module class: when the class is built inside a compile region (regions.py follows
        `Block(...)` there, and `super().__init__()` to a project base's) and an `__init__` of the
        chain breaks, each runs as a frame of its own and falls back at this line (GB0119)."""
        region = self.region
        if region is None or region.cls is None or region.function.name != "__init__":
            return False
        if isinstance(receiver, cst.Call):
            return is_super_call(receiver)
        name = dotted_name(receiver)
        return name is not None and self.info.qualify(name) == "torch.nn.Module"

    def _duplicate_tensor_argument(self, node: cst.Call) -> bool:
        """Whether two arguments of `node` are the same name or `self.<attr>` holding a tensor."""
        assert self.env is not None
        seen: set[str] = set()
        for arg in node.args:
            if arg.star or not isinstance(arg.value, (cst.Name, cst.Attribute)):
                continue
            name = dotted_name(arg.value)
            if name is None or not self.env.is_tensor(arg.value):
                continue
            if name in seen:
                return True
            seen.add(name)
        return False

    def _is_autograd_function(self, recv: cst.BaseExpression) -> bool:
        """Whether `recv` names a class deriving from `torch.autograd.Function` (through project
        classes: the index's qualified bases)."""
        name = dotted_name(recv)
        if name is None:
            return False
        qual, depth = self.info.qualify(name), 0
        pending = [qual]
        while pending and depth < 20:
            depth += 1
            found = self.index.lookup_class(pending.pop())
            if found is None:
                continue
            for base in found[1].bases:
                if base in ("torch.autograd.Function", "torch.autograd.function.Function"):
                    return True
                pending.append(base)
        return False

    def _clears_fresh_grad(self, node: cst.Call) -> bool:
        """`t.requires_grad_(False)` on a local made here without grad (`torch.randn_like(z)`,
        `y.detach()`): a no-op Dynamo traces (checked on 2.13; on an input or a parameter that
        requires grad it breaks, GB0125, and so does `requires_grad_(True)` on anything)."""
        recv = node.func.value  # type: ignore[attr-defined]
        if not (isinstance(recv, cst.Name) and self._fresh and recv.value in self._fresh[-1]):
            return False
        args = [a for a in node.args if not a.star]
        return (len(args) == 1 and isinstance(args[0].value, cst.Name) and args[0].value.value == "False"
                and (args[0].keyword is None or args[0].keyword.value == "requires_grad"))

    def _reordered_print(self, node: cst.Call) -> bool:
        """A `print` Dynamo records and makes after the graph instead of breaking: the module
        adds `print` to `torch._dynamo.config.reorderable_logging_functions`, and the call has
        positional arguments that are not a `torch.Size` or a module (those are refused:
        "attempted to reorder a debugging function that can't actually be reordered", checked
        on 2.13). See breakscan.fix.rewrites.reorder_print."""
        if not self._reorders_print or self.env is None:
            return False
        if any(a.keyword is not None or a.star for a in node.args):
            return False
        values = [a.value for a in node.args]
        for arg in node.args:
            if isinstance(arg.value, cst.FormattedString):
                values += [p.expression for p in arg.value.parts if isinstance(p, cst.FormattedStringExpression)]
        return not any(self.env.kind(v) in (T.SHAPE, T.MODULE) for v in values)

    def _is_storage(self, expr: cst.BaseExpression) -> bool:
        """`x.untyped_storage()` of a tensor (or a value of unknown type), or a local bound only to
        one (looked up only where the module's text says `untyped_storage`)."""
        if isinstance(expr, cst.Name) and self._mentions_storage:
            expr = self._single_binding(expr.value) or expr
        return (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and not expr.args
                and expr.func.attr.value == "untyped_storage" and self.env is not None
                and self.env.kind(expr.func.value) in (*TENSORISH, T.UNKNOWN))

    def _numpy_generator(self, receiver: cst.BaseExpression) -> bool:
        """Whether `receiver` holds a NumPy random generator (NUMPY_GENERATORS): a module-level
        name bound to one and not bound in the function, a local bound once to one, or `self.x`
        with `x` a class-level attribute of the region's class or stored by its `__init__` (BRK271).
        Only in a module whose source names a generator factory (a generator a base class in
        another module stores is not seen)."""
        assert self.env is not None and self.region is not None
        mentions = self.__dict__.get("_makes_generators")
        if mentions is None:  # checked once per module: most never make a generator
            source = self.source or ""
            mentions = self.__dict__["_makes_generators"] = any(
                factory.rpartition(".")[2] in source for factory in NUMPY_GENERATORS)
        if not mentions:
            return False
        if isinstance(receiver, cst.Name):
            name = receiver.value
            if name in self.env.names:  # a local (or parameter): a generator only if bound once to one
                value = self._single_binding(name)
                return isinstance(value, cst.Call) and self._makes_generator(value)
            return self.info.module_vars.get(name) in NUMPY_GENERATORS
        if not (isinstance(receiver, cst.Attribute) and isinstance(receiver.value, cst.Name)
                and receiver.value.value == "self" and self.region.cls is not None):
            return False
        attr = receiver.attr.value
        cls = self.region.cls
        return cls.class_calls.get(attr) in NUMPY_GENERATORS or any(
            q in NUMPY_GENERATORS for q in self.index.class_attr_kinds(cls.qualname)[2].get(attr, ()))

    def _makes_generator(self, call: cst.Call) -> bool:
        name = dotted_name(call.func)
        return name is not None and not self._is_shadowed(name) and self.info.qualify(name) in NUMPY_GENERATORS

    def _holds_tensors(self, seq: cst.BaseExpression) -> bool:
        """Whether `seq` is a list or tuple holding a tensor the inference is sure of: a display
        with such an element, a list comprehension of tensors, or a value of kind TENSOR_SEQ (a
        local list of tensors, `x.split(1)`); not a single tensor (BRK269)."""
        assert self.env is not None
        if isinstance(seq, (cst.List, cst.Tuple)):
            return any(not isinstance(e, cst.StarredElement) and self.env.kind(e.value) in TENSORISH
                       and not self._only_guessed(e.value) for e in seq.elements)
        if isinstance(seq, cst.ListComp):
            return self.env.element_of(seq) in TENSORISH
        return self.env.kind(seq) is T.TENSOR_SEQ and not self._only_guessed(seq)

    def _tensor_elements(self, it: cst.BaseExpression | None) -> bool:
        """Whether iterating `it` gives tensors the inference is sure of: a generator or list
        comprehension of tensor conditions (`t.isnan().any() for t in ts`), a list of tensors,
        a tensor (its rows); not one only guessed by the root parameters' convention."""
        assert self.env is not None
        if it is None:
            return False
        if isinstance(it, (cst.GeneratorExp, cst.ListComp)):
            return self.env.element_of(it) in TENSORISH
        return self.env.kind(it) in (T.TENSOR_SEQ, *TENSORISH) and not self._only_guessed(it)

    def _size_arguments(self, node: cst.Call, args: list[cst.Arg] | None = None) -> None:
        """BRK108 on `node` when one of `args` (default: its arguments) is a size, or a tuple or
        list of sizes, computed as a tensor in this graph."""
        assert self.env is not None
        for arg in node.args if args is None else args:
            if arg.keyword is not None or arg.star:
                continue
            # A size given as one tuple or list (`torch.zeros((n, d))`) is checked element by element.
            values = ([e.value for e in arg.value.elements if not isinstance(e, cst.StarredElement)]
                      if isinstance(arg.value, (cst.Tuple, cst.List)) else [arg.value])
            # Only a size computed in this graph breaks; an input of the graph is a size Dynamo
            # reads at entry (checked on 2.13 with backend "eager"; Inductor fails on both, GB0219).
            if any(self.env.is_tensor(v) and self._computes(v) and not self._only_guessed(v) for v in values):
                self._emit_check("tensor-size-argument", node)
                return

    def _is_logger(self, recv: cst.BaseExpression) -> bool:
        name = dotted_name(recv)
        if name is None:
            return False
        last = name.rsplit(".", 1)[-1]
        if last in LOGGER_NAMES:
            if self._project_object(name):
                return False  # `LOGGER = Logger()` of the project: its `log` is traced like any method
            return name != "logging" or self.info.qualify("logging") == "logging"
        return self.info.module_vars.get(name, "").endswith(("getLogger", "get_logger"))

    def _project_object(self, name: str) -> bool:
        """Whether `name` (`LOGGER`, `log`, `self.logger`) holds an object of a project class: a
        module-level `LOGGER = Logger()`, a local instance (TypeEnv.instances), or what
        `__init__` stores in `self.logger`."""
        head, _, attr = name.partition(".")
        if not attr:
            built = self.env.instances.get(name) if self.env is not None else None
            if built is None and name in self.info.module_vars:
                built = self.info.qualify(self.info.module_vars[name])
            return bool(built) and self.index.lookup_class(built) is not None
        region = self.region
        cls = (region.dispatch or region.cls) if region is not None and head == "self" and "." not in attr else None
        if cls is None:
            return False
        _, _, subs = self.index.class_attr_kinds(cls.qualname)
        return any(self.index.lookup_class(q) is not None for q in subs.get(attr, ()))

    def _calls_disabled(self, func: cst.BaseExpression, qual: str) -> bool:
        if self.index.is_disabled(qual):
            return True
        if (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
                and func.value.value == "self" and self.region is not None and self.region.cls):
            found = self.index.method(self.region.cls.qualname, func.attr.value)
            owner = found[1].qualname if found else self.region.cls.qualname  # else `self.sub = disable(Sub())`
            subs = self.index.class_attr_kinds(self.region.cls.qualname)[2].get(func.attr.value, ())
            return self.index.is_disabled(f"{owner}.{func.attr.value}") or any(
                self.index.is_disabled(f"{q}.forward") for q in subs)  # an instance of a disabled class
        return False

    def _plain_copy(self, arg: cst.BaseExpression) -> bool:
        """Whether a deep copy of `arg` copies a plain Python value, which Dynamo traces (2.13,
        2.15): one the inference knows is no tensor, or one of unknown kind in a method of a
        plain project class (no `nn.Module` up its bases, no tensor attribute, no module stored
        on `self`: a config's `copy.deepcopy(self)`, or of a sub-config read with
        `getattr(self, name)`)."""
        kind = self.env.kind(arg)
        if kind is T.SCALAR:
            return True
        cls = self.region.cls if self.region is not None else None
        if kind is not T.UNKNOWN or cls is None or self.index.is_module_class(cls.qualname):
            return False
        tensors, _, subs = self.index.class_attr_kinds(cls.qualname)
        return not tensors and not any(self.index.is_module_class(q) for built in subs.values() for q in built)

    def _makes_disabled(self, call: cst.Call) -> bool:
        """`torch.compiler.disable(fn)` or `disable(recursive=False)(fn)` (also `torch._dynamo.disable`,
        `skip`) called inside a region: Dynamo cannot trace `disable` itself and breaks there
        (GB0007), then again where the wrapper is called (GB0098), whatever `fn` is: a function
        passed in as a parameter, a method, a lambda (measured on 2.13)."""
        if not any(not a.keyword and not a.star for a in call.args):
            return False  # `disable(recursive=False)` alone is a decorator factory
        func = call.func
        if isinstance(func, cst.Call) and not any(not a.keyword and not a.star for a in func.args):
            func = func.func  # disable(recursive=False)(fn)
        name = dotted_name(func)
        if name is None or self._is_shadowed(name):
            return False
        qual = self.info.qualify(name)
        return qual in DISABLE_DECORATORS or qual == "torch._dynamo.decorators.skip"

    def _is_passed_in(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.Name):
            return bool(self._params) and expr.value in self._params[-1]
        return (isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name)
                and expr.value.value == "self")

    def _callee_parameter(self, expr: cst.BaseExpression) -> bool:
        """A parameter of a region function reached through a call (not the compiled root): the
        caller's value, which an inlined helper such as `watch(h)` gets as a tensor of the graph."""
        fn = self.env.function if self.env is not None else None
        return (isinstance(expr, cst.Name) and fn is not None and self.region is not None
                and len(self.region.chain) > 1 and expr.value in {p.name.value for p in all_params(fn)})

    def _tensor_hook(self, hook: cst.BaseExpression) -> None:
        """`t.register_hook(hook)` on a tensor computed in this graph: each mutation of outer state
        in the hook (a lambda, a def of the enclosing function or of this module) is BRK244
        (tensor_hooks.outer_mutations, GB0067), reported where it is, as Dynamo does."""
        fn: cst.Lambda | cst.FunctionDef | None = hook if isinstance(hook, cst.Lambda) else None
        if isinstance(hook, cst.Name):
            enclosing = self.env.function if self.env is not None else None
            nested = [d for d in iter_nodes(enclosing.body, cst.FunctionDef) if d.name.value == hook.value] \
                if enclosing is not None else []
            if len(nested) == 1:
                fn = nested[0]
            elif not nested:
                fn = self._defined_once(hook.value)
        if fn is not None:
            for mutation in outer_mutations(fn):
                self._emit_check("tensor-hook-side-effect", mutation)

    def _is_module_receiver(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.Name) and expr.value == "self":
            return True
        if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self":
            return True
        return self.env is not None and self.env.kind(expr) is T.MODULE

# Which checks each visit_ method runs (errors.rules_at_risk adds the catalog's call rules).
METHOD_CHECKS: dict[str, tuple[str, ...]] = {
    "visit_Call": ("scalar-conversion", "tensor-str", "tensor-range", "tensor-slice-bound", "next-on-argument",
                   "requires-grad-set", "disabled-call", "disallowed-call", "hook-in-forward", "tensor-size-argument",
                   "tensor-hook-side-effect",
                   "where-one-arg", "autograd-duplicate-input", "module-built-in-region", "str-enum-method",
                   "random-symbolic-argument", "as-tensor-of-tensors", "numpy-generator-method",
                   "tensor-subclass-init", "tensor-storage-use"),
}
