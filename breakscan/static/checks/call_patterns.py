"""Checks on what a call is given or called on, where the callee alone does not decide: a factory
asked for `requires_grad=True`, `one_hot` without `num_classes`, a strided nested tensor,
`torch._check*` messages, sorting tensors or taking `max`/`min` by a tensor key, and calls of
submodules Dynamo refuses to wrap (RNNs, TorchScript modules). Each fact below was measured with
Dynamo 2.13 (backend "eager")."""

from __future__ import annotations

import re

import libcst as cst

from breakscan.static.checks.base import CheckBase
from breakscan.static.syntax import dotted_name
from breakscan.static.tensors import TENSOR_MAPS, TENSORISH, TORCH_FACTORIES, T, TypeEnv
from breakscan.static.torch_data import optimizer_disabled_methods, optimizer_step_breaks
from breakscan.static.walk import iter_nodes

# `torch._check*(cond, message)`: the message must be a lambda Dynamo can inline (GB9840 otherwise).
CHECK_FUNCTIONS = {"torch._check", "torch._check_index", "torch._check_value", "torch._check_type",
                   "torch._check_not_implemented"}
NESTED_FACTORIES = {"torch.nested.nested_tensor", "torch.nested.as_nested_tensor"}
ONE_HOT = {"torch.nn.functional.one_hot"}
# Submodule classes Dynamo refuses to wrap (torch/_dynamo/variables/builder.py): RNN modules while
# `config.allow_rnn` is off (isinstance: subclasses too), and TorchScript modules.
RNN_CLASSES = {"torch.nn.RNN", "torch.nn.LSTM", "torch.nn.GRU", "torch.nn.modules.rnn.RNN",
               "torch.nn.modules.rnn.LSTM", "torch.nn.modules.rnn.GRU"}
SCRIPT_BUILDERS = {"torch.jit.script", "torch.jit.freeze", "torch.jit.trace", "torch.jit.trace_module"}
# Module backward hooks: a submodule with one is refused unless compiled autograd is on (GB0083).
BACKWARD_HOOKS = {"register_full_backward_hook", "register_backward_hook", "register_full_backward_pre_hook"}
GENERATOR_CLASSES = {"torch.Generator", "torch._C.Generator"}
# nn.Transformer* modules given an attention mask and no causal flag: their `forward` tests the
# mask against a causal one (`_detect_is_causal_mask`: `bool((mask == causal).all())`), which
# reads a tensor's value. Value: the (mask, is_causal) pairs of the forward, each as (positional
# index, keyword). Measured on 2.13 and 2.15; `memory_mask` is never tested (`memory_is_causal`
# defaults to False).
_ENCODER_MASK = ((1, "mask"), (3, "is_causal"))
_DECODER_MASK = ((2, "tgt_mask"), (6, "tgt_is_causal"))
TRANSFORMER_CLASSES = ("torch.nn.Transformer", "torch.nn.modules.transformer.Transformer")
TRANSFORMER_MASKS: dict[str, tuple[tuple[tuple[int, str], tuple[int, str]], ...]] = {
    **dict.fromkeys(("torch.nn.TransformerEncoder", "torch.nn.modules.transformer.TransformerEncoder"),
                    (_ENCODER_MASK,)),
    **dict.fromkeys(("torch.nn.TransformerDecoder", "torch.nn.modules.transformer.TransformerDecoder"),
                    (_DECODER_MASK,)),
    **dict.fromkeys(TRANSFORMER_CLASSES,
                    (((2, "src_mask"), (8, "src_is_causal")), ((3, "tgt_mask"), (9, "tgt_is_causal")))),
}
# The submodules an `nn.Transformer` builds: `self.tf.encoder(...)`, `self.tf.decoder(...)`.
TRANSFORMER_PARTS = {"encoder": "torch.nn.TransformerEncoder", "decoder": "torch.nn.TransformerDecoder"}
# `numpy.random` draws Dynamo runs through torch._numpy: a scalar draw (no size) is read back as a
# number, a data-dependent operator (GB0033); a sized one is traced. Value: the position of the
# size argument (None: every positional is a dimension, `rand(2, 3)`). `choice` breaks sized or
# not, and `default_rng()` is never traced (GB0156). Measured on torch 2.13 (BRK206's limitations).
NUMPY_RANDOM_SIZE_AT: dict[str, int | None] = {
    "numpy.random.rand": None, "numpy.random.randn": None, "numpy.random.random": 0,
    "numpy.random.random_sample": 0, "numpy.random.normal": 2, "numpy.random.uniform": 2,
    "numpy.random.randint": 2}
NUMPY_RANDOM_ALWAYS = {"numpy.random.choice", "numpy.random.default_rng"}
# How code names an optimizer: `optimizer`, `opt`, `optim`, `g_opt`, `optimizer_d`, `optimizerG`, `opt1`
# (`options`, `optimum`, `model` do not match). An optimizer's disabled methods (`zero_grad`...) are
# matched on such a receiver, or on `self.<attr>` that `__init__` built with `torch.optim.*(...)`.
OPTIMIZER_NAME = re.compile(r"(?:\w+_)?(?:opt|optim|optimi[sz]er)(?:[_A-Z0-9]\w*)?")
# torch.Generator's methods (all read or reseed RNG state: Dynamo breaks on each, GB7650).
GENERATOR_METHODS = {"manual_seed", "seed", "initial_seed", "get_state", "set_state", "get_offset",
                     "set_offset", "graphsafe_get_state", "graphsafe_set_state", "clone_state"}


def _keyword(node: cst.Call, name: str) -> cst.Arg | None:
    return next((a for a in node.args if a.keyword is not None and a.keyword.value == name), None)


def _positional(node: cst.Call) -> list[cst.BaseExpression]:
    return [a.value for a in node.args if a.keyword is None and not a.star]


def _argument(node: cst.Call, at: int, keyword: str) -> cst.BaseExpression | None:
    """The argument a call passes by `keyword`, else at position `at`; None when it passes none."""
    passed = _keyword(node, keyword)
    args = _positional(node)
    return passed.value if passed is not None else args[at] if len(args) > at else None


def _is_minus_one(expr: cst.BaseExpression) -> bool:
    return (isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus)
            and isinstance(expr.expression, cst.Integer) and expr.expression.value == "1")


def _is_text(expr: cst.BaseExpression) -> bool:
    """A string built in place: a literal, an f-string, a concatenation or `%`/`+` of one,
    `"...".format(...)` or `str(...)`."""
    if isinstance(expr, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
        return True
    if isinstance(expr, cst.BinaryOperation):
        return _is_text(expr.left)
    if isinstance(expr, cst.Call):
        func = expr.func
        if isinstance(func, cst.Attribute) and func.attr.value == "format":
            return _is_text(func.value)
        return isinstance(func, cst.Name) and func.value == "str"
    return False


class CallPatternChecks(CheckBase):
    """Run from CallChecks.visit_Call for every call inside a region (`_call_patterns`)."""

    def _call_patterns(self, node: cst.Call, name: str) -> None:
        """Check one call whose callee spells `name` (a dotted name)."""
        assert self.env is not None
        func = node.func
        if isinstance(func, cst.Attribute):
            self._method_patterns(node, func)
        passed = _keyword(node, "generator")
        if passed is not None and self._is_generator_attr(passed.value):
            self._emit_check("generator-in-region", node)  # GB0055: no proxy for a Generator
        if self._is_shadowed(name):
            return
        qual = self.info.qualify(name)
        if qual in GENERATOR_CLASSES:
            self._emit_check("generator-in-region", node)  # GB0363: an opaque object made mid-graph
        elif qual in ONE_HOT:
            self._one_hot(node)
        elif qual in NUMPY_RANDOM_SIZE_AT or qual in NUMPY_RANDOM_ALWAYS:
            self._numpy_random(node, qual)
        elif qual in NESTED_FACTORIES:
            self._nested(node)
        elif qual in CHECK_FUNCTIONS:
            self._check_message(node)
        elif qual == "torch._assert":
            args = _positional(node)
            cond = args[0] if args else getattr(_keyword(node, "condition"), "value", None)
            if cond is not None and self.env.is_tensor(cond) \
                    and not (isinstance(cond, cst.Name) and self._only_guessed(cond)):
                self._emit_check("tensor-assert", node)  # GB0033 on 2.13: the condition is read as a bool
        elif qual == "torch.repeat_interleave":
            args = _positional(node)
            repeats = _keyword(node, "repeats")
            value = repeats.value if repeats is not None else (args[1] if len(args) > 1 else args[0] if args else None)
            self._repeat_interleave(node, value)
        elif qual == "sorted":
            args = _positional(node)
            if args and self._sorts_tensors(args[0], _keyword(node, "key")):
                self._emit_check("sort-tensors", node)
            elif args and _keyword(node, "key") is None and self._sorts_tensor_pairs(args[0]):
                self._emit_check("sort-tensor-pairs", node)  # GB0207 on 2.13 only (BRK267)
        elif qual in ("max", "min"):
            args, key = _positional(node), _keyword(node, "key")
            if len(args) == 1 and key is not None and self._key_returns_tensor(args[0], key.value):
                self._emit_check("max-min-tensor-key", node)
        elif self._is_factory(qual):
            flag = _keyword(node, "requires_grad")
            if flag is not None and isinstance(flag.value, cst.Name) and flag.value.value == "True":
                self._emit_check("requires-grad-factory", node)

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        """A `class` statement in a region: Dynamo does not trace `__build_class__` (GB8977;
        `enable_trace_load_build_class` is off by default)."""
        if self.region is not None:
            self._emit_check("class-in-region", node)
        return True

    def _method_patterns(self, node: cst.Call, func: cst.Attribute) -> None:
        """`lst.sort()` of tensors or by a tensor key; `self.<sub>(...)` of a refused submodule."""
        assert self.env is not None
        meth = func.attr.value
        if meth in optimizer_disabled_methods() or meth == "step":
            built = self._optimizer_class(func.value)
            if built is not None and meth != "step":
                self._emit_check("optimizer-disabled-method", node)  # GB0008
                return
            if built is not None and (built == "" or built in optimizer_step_breaks()):
                self._emit_check("optimizer-step-break", node)  # GB0025, on purpose
                return
        if meth == "sort" and not self.env.is_tensor(func.value) and self._sorts_tensors(
                func.value, _keyword(node, "key")):
            self._emit_check("sort-tensors", node)
            return
        if meth == "repeat_interleave" and self.env.is_tensor(func.value):
            repeats = _keyword(node, "repeats")
            args = _positional(node)
            self._repeat_interleave(node, repeats.value if repeats is not None else (args[0] if args else None))
            return
        if meth == "as_subclass" and not any(a.star for a in node.args):
            cls = _keyword(node, "cls")
            args = _positional(node)
            value = cls.value if cls is not None else (args[0] if len(args) == 1 else None)
            name = dotted_name(value) if value is not None else None
            if name is not None and not self._is_shadowed(name) and self.info.qualify(name) == "torch.Tensor":
                self._emit_check("as-subclass-plain-tensor", node)  # GB0001
                return
        if meth in GENERATOR_METHODS and self._is_generator_attr(func.value):
            self._emit_check("generator-in-region", node)  # GB7650
            return
        if meth in TRANSFORMER_PARTS and isinstance(func.value, cst.Attribute) \
                and isinstance(func.value.value, cst.Name) and func.value.value.value == "self" \
                and self.region is not None and self.region.cls is not None:
            built = self.index.class_attr_kinds(self.region.cls.qualname)[2].get(func.value.attr.value)
            if built and self._transformer_class(built[0]) in TRANSFORMER_CLASSES:
                self._transformer_mask(node, TRANSFORMER_PARTS[meth])  # `self.tf.decoder(x, mem, tgt_mask=m)`
            return
        if not (isinstance(func.value, cst.Name) and func.value.value == "self"
                and self.region is not None and self.region.cls is not None):
            return
        tensors, _, subs = self.index.class_attr_kinds(self.region.cls.qualname)
        built = subs.get(meth)
        if not built or meth in tensors or self.index.method(self.region.cls.qualname, meth) is not None:
            return
        # The outermost call of the `__init__` assignment (`self.rnn = nn.LSTM(...)`) builds it.
        if built[0] in SCRIPT_BUILDERS:
            self._emit_check("script-module-call", node)
        elif self._derives_from(built[0], RNN_CLASSES):
            self._rnn_module(meth, node)
        elif self._has_backward_hook(self.region.cls.qualname, meth, built[0]):
            self._emit_check("backward-hook-module", node)
        elif (cls := self._transformer_class(built[0])) is not None:
            self._transformer_mask(node, cls)

    def _transformer_class(self, qual: str) -> str | None:
        """The `nn.Transformer*` class (TRANSFORMER_MASKS) that class `qual` is or derives from
        through project classes; None for any other class."""
        return next((cls for cls in TRANSFORMER_MASKS if self._derives_from(qual, {cls})), None)

    def _transformer_mask(self, call: cst.Call, cls: str) -> None:
        """BRK275: a call of an `nn.Transformer*` module given a mask the kind inference knows is a
        tensor (a tensor local, a factory, `generate_square_subsequent_mask(n)`, not only a guessed
        parameter) without its causal flag, or with `None` as the flag. A flag of any other value
        (`is_causal=False`, a variable) is taken as set: Dynamo then never tests the mask."""
        if any(a.star for a in call.args):
            return
        assert self.env is not None
        for mask_at, flag_at in TRANSFORMER_MASKS[cls]:
            flag = _argument(call, *flag_at)
            if flag is not None and not (isinstance(flag, cst.Name) and flag.value == "None"):
                continue
            mask = _argument(call, *mask_at)
            if mask is not None and self.env.is_tensor(mask) and not self._only_guessed(mask):
                self._emit_check("transformer-mask-causal-test", call)
                return

    def _rnn_module(self, attr: str, call: cst.Call) -> None:
        """BRK231 for `self.<attr>(...)`, an RNN submodule, where Dynamo refuses it (measured on
        2.13 and 2.15). Up to 2.14 it refuses the module where the frame first reads it
        (`assert self.gru is not None` a line before the call: GB0014 there, and the frame falls
        back). From 2.15 (the rule's ids then hold GB0148, the delayed unsupported call) it
        breaks at the call, and at a read of one of the module's attributes before it
        (`self.lstm.num_layers`: GB0014); a plain `is not None` test passes."""
        reads = self._self_reads_before(attr, call)
        for rule in self.rules.checks.get("rnn-module-call", ()):
            if "GB0148" in rule.gb_ids:
                sites: list[cst.CSTNode] = [*[read for read, of_attribute in reads if of_attribute][:1], call]
            else:
                sites = [reads[0][0] if reads else call]
            for site in sites:
                if (id(site), rule.id, id(self.region)) not in self._rnn_sites:  # one per site, however many calls
                    self._rnn_sites.add((id(site), rule.id, id(self.region)))
                    self._emit(rule, site)

    def _joins_formatted_tensors(self, node: cst.Call, func: cst.Attribute) -> bool:
        """`", ".join([f"{p:.2f}" for p in probs])` (or a generator): a string literal's `join` of
        a comprehension whose element is an f-string formatting a tensor, the `for` targets bound
        to the iterable's elements (BRK246, GB0156)."""
        assert self.env is not None
        if not isinstance(func.value, (cst.SimpleString, cst.ConcatenatedString)) or len(node.args) != 1:
            return False
        arg = node.args[0].value
        if not isinstance(arg, (cst.ListComp, cst.GeneratorExp)) or not isinstance(arg.elt, cst.FormattedString):
            return False
        scope = self.env.comprehension_scope(arg)
        return any(isinstance(part, cst.FormattedStringExpression) and scope.is_tensor(part.expression)
                   for part in arg.elt.parts)

    def _self_reads_before(self, attr: str, call: cst.Call) -> list[tuple[cst.Attribute, bool]]:
        """The reads of `self.<attr>` in the enclosing def before `call`, in source order, each
        with whether one of its attributes is read (`self.lstm.num_layers`)."""
        fn = self.env.function if self.env is not None else None
        if fn is None:
            return []
        reads: list[tuple[cst.Attribute, bool]] = []
        of_attribute: set[int] = set()
        for node in iter_nodes(fn.body, (cst.Attribute, cst.Call)):
            if node is call:
                break
            if isinstance(node, cst.Attribute) and _is_self_attr(node.value, attr):
                of_attribute.add(id(node.value))  # pre-order: the outer attribute comes first
            elif isinstance(node, cst.Attribute) and _is_self_attr(node, attr):
                reads.append((node, id(node) in of_attribute))
        return reads

    def _has_backward_hook(self, owner: str, attr: str, built: str) -> bool:
        """Whether the submodule `self.<attr>` of class `owner` (built by calling `built`) has a
        module backward hook: registered in its own class's `__init__` (or a project base's:
        `self.register_full_backward_hook(...)`) or on it by the owner's `__init__`
        (`self.<attr>.register_full_backward_hook(...)`)."""
        init = self.index.method(owner, "__init__")
        if init is not None and any(c.kind == "name" and c.name.rpartition(".")[0] == f"self.{attr}"
                                    and c.name.rpartition(".")[2] in BACKWARD_HOOKS for c in init[2].calls):
            return True
        sub_init = self.index.method(built, "__init__") if self.index.lookup_class(built) else None
        return sub_init is not None and any(c.kind == "self" and c.name in BACKWARD_HOOKS for c in sub_init[2].calls)

    def _optimizer_class(self, expr: cst.BaseExpression) -> str | None:
        """The optimizer class `expr` holds: the `torch.optim.<Class>` that `__init__` (of the class
        or a project base) built into `self.<attr>`; "" (class unknown) when its last name reads
        as an optimizer (OPTIMIZER_NAME); None when it is not seen to be an optimizer."""
        last = expr.attr.value if isinstance(expr, cst.Attribute) else expr.value if isinstance(expr, cst.Name) else None
        if last is None:
            return None
        if (isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self"
                and self.region is not None and self.region.cls is not None):
            built = self.index.class_attr_kinds(self.region.cls.qualname)[2].get(last)
            if built and built[0].startswith("torch.optim."):
                return built[0]
        return "" if OPTIMIZER_NAME.fullmatch(last) else None

    def _is_generator_attr(self, expr: cst.BaseExpression) -> bool:
        """`self.<attr>` that `__init__` (of the class or a project base) set to `torch.Generator(...)`,
        or a local the function binds once to `torch.Generator(...)` (`.manual_seed(s)` chained or
        not): made in the region, its break (GB0363) hands it to the resumed graph as an input, which
        no random op can take (GB0055, measured on 2.13 and 2.15)."""
        if isinstance(expr, cst.Name):
            value = self._single_binding(expr.value)
            while (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
                   and value.func.attr.value == "manual_seed"):
                value = value.func.value
            name = dotted_name(value.func) if isinstance(value, cst.Call) else None
            return name is not None and not self._is_shadowed(name) and self.info.qualify(name) in GENERATOR_CLASSES
        if not (isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self"
                and self.region is not None and self.region.cls is not None):
            return False
        built = self.index.class_attr_kinds(self.region.cls.qualname)[2].get(expr.attr.value)
        return bool(built) and built[0] in GENERATOR_CLASSES

    def _derives_from(self, qual: str, targets: set[str]) -> bool:
        """Whether class `qual` is one of `targets` or derives from one through project classes."""
        pending, seen = [qual], set()
        while pending and len(seen) < 20:
            current = pending.pop()
            if current in targets:
                return True
            if current in seen:
                continue
            seen.add(current)
            found = self.index.lookup_class(current)
            if found is not None:
                pending.extend(found[1].bases)
        return False

    def _is_factory(self, qual: str) -> bool:
        return qual in TORCH_FACTORIES or (qual.startswith("torch.") and qual.endswith("_like")
                                           and qual.count(".") == 1)

    def _repeat_interleave(self, node: cst.Call, repeats: cst.BaseExpression | None) -> None:
        """Tensor `repeats` and no `output_size=`: the output length is `repeats.sum()` (GB0036).
        (`torch.repeat_interleave(r)` alone takes `r` as the repeats.)"""
        assert self.env is not None
        if (repeats is not None and _keyword(node, "output_size") is None and not any(a.star for a in node.args)
                and self.env.is_tensor(repeats) and not self._only_guessed(repeats)):
            self._emit_check("repeat-interleave-tensor", node)

    def _one_hot(self, node: cst.Call) -> None:
        """No `num_classes` (or -1): the width is the data's maximum plus one (GB0246; -1 given
        explicitly is reported as a data-dependent operator, GB0033)."""
        args = _positional(node)
        classes = _keyword(node, "num_classes")
        if any(a.star for a in node.args):
            return
        value = classes.value if classes is not None else (args[1] if len(args) > 1 else None)
        if value is None or _is_minus_one(value):
            self._emit_check("one-hot-data-dependent", node)

    def _numpy_random(self, node: cst.Call, qual: str) -> None:
        """A `numpy.random` draw without a size (GB0033), any `choice` (GB0033) or `default_rng()`
        (GB0156). `size=None` written out is a scalar draw; `*args`/`**kwargs` may carry a size
        and are not flagged."""
        if qual not in NUMPY_RANDOM_ALWAYS:
            if any(a.star for a in node.args):
                return
            size = _keyword(node, "size")
            if size is not None and not (isinstance(size.value, cst.Name) and size.value.value == "None"):
                return
            at, args = NUMPY_RANDOM_SIZE_AT[qual], _positional(node)
            if len(args) > (0 if at is None else at):
                return
        self._emit_check("numpy-random-scalar", node)

    def _nested(self, node: cst.Call) -> None:
        """`torch.nested.nested_tensor` / `as_nested_tensor` with the default (strided) layout:
        no fake-tensor kernel (GB0090) or refused outright with `layout=torch.strided` (GB0233);
        `layout=torch.jagged` is traced. A layout Dynamo-time unknown (a variable) is not flagged."""
        if any(a.star for a in node.args) or len(_positional(node)) > 3:
            return
        layout = _keyword(node, "layout")
        if layout is None:
            self._emit_check("nested-strided", node)
            return
        name = dotted_name(layout.value)
        if name is not None and self.info.qualify(name) == "torch.strided":
            self._emit_check("nested-strided", node)

    def _check_message(self, node: cst.Call) -> None:
        """A message built as a string (GB9840 up to torch 2.13; traced on 2.15), or a lambda that
        reads a tensor (GB9158)."""
        assert self.env is not None
        msg = _keyword(node, "message") or _keyword(node, "msg")
        args = _positional(node)
        value = msg.value if msg is not None else (args[1] if len(args) > 1 else None)
        if value is None:
            return
        if _is_text(value):
            self._emit_check("check-message-text", node)
        elif isinstance(value, cst.Lambda):
            params = {p.name.value for p in value.params.params}
            if any(n.value not in params and self.env.is_tensor(n) and not self._only_guessed(n)
                   for n in iter_nodes(value.body, cst.Name)):
                self._emit_check("check-message-tensor", node)

    def _sorts_tensors(self, arg: cst.BaseExpression, key: cst.Arg | None) -> bool:
        """A list of tensors (compared with `<`: GB0207) or one tensor (iterated: GB0059) with no
        `key=`, or any sequence with a `key=` that returns a tensor (`_key_returns_tensor`;
        GB0207; `key=len` or `lambda t: t.shape[0]` is traced)."""
        assert self.env is not None
        if key is not None:
            return self._key_returns_tensor(arg, key.value)
        if self._zipped_kinds(arg) is not None:
            return False  # tuples compare element by element only on a tie: not flagged
        kind = self.env.kind(arg)
        return (kind is T.TENSOR_SEQ or kind in TENSORISH) and not self._only_guessed(arg)

    def _sorts_tensor_pairs(self, arg: cst.BaseExpression) -> bool:
        """Tuples holding tensors sorted with no `key=`: `zip(names, tensors)` (`_zipped_kinds`)
        or `d.items()` of a dict of tensors (BRK267)."""
        return self._zipped_kinds(arg) is not None or self._items_kinds(arg) is not None

    def _key_returns_tensor(self, seq: cst.BaseExpression, key: cst.BaseExpression) -> bool:
        """Whether `key=` returns a tensor for the elements of `seq`, so that `sorted`, `list.sort`,
        `max` and `min` compare tensors (GB0207, GB0193 on 2.13, GB5687 on 2.15): a one-parameter
        lambda whose body is a tensor with its parameter bound to an element of `seq`
        (`lambda t: t.norm()` over tensors, `lambda i: scores[i]` over `range(n)` with `scores` a
        list of tensors); a lambda picking a tensor element of zipped tuples or of a tensor dict's
        `items()` (`lambda kv: kv[1]`); or `d.get` / `d.__getitem__` of a dict of tensors."""
        assert self.env is not None
        pairs = self._zipped_kinds(seq) or self._items_kinds(seq)
        if pairs is not None:
            return self._key_picks_tensor(key, pairs)
        if isinstance(key, cst.Attribute) and key.attr.value in ("get", "__getitem__"):
            return self.env.kind(key.value) in TENSOR_MAPS
        if not (isinstance(key, cst.Lambda) and len(key.params.params) == 1
                and not isinstance(key.params.star_arg, cst.Param)):
            return False
        element = self.env.element_kind(seq)
        if element is T.TENSOR and self._only_guessed(seq):
            return False
        scope = TypeEnv(self.info, parent=self.env)
        scope.names[key.params.params[0].name.value] = element
        body = key.body
        if scope.kind(body) not in TENSORISH:
            return False
        # an outer name read by the body must not be a tensor only by a root parameter's guess
        return not any(self._only_guessed(n) for n in iter_nodes(body, cst.Name)
                       if n.value != key.params.params[0].name.value and self.env.is_tensor(n))

    def _items_kinds(self, seq: cst.BaseExpression) -> list[T] | None:
        """`d.items()` of a dict of tensors: the kinds of its (key, tensor) pairs
        (TypeEnv.zipped_kinds); else None."""
        assert self.env is not None
        if not (isinstance(seq, cst.Call) and isinstance(seq.func, cst.Attribute) and seq.func.attr.value == "items"):
            return None
        pairs = self.env.zipped_kinds(seq)
        return pairs if pairs is not None and pairs[-1] in TENSORISH else None

    def _zipped_kinds(self, arg: cst.BaseExpression) -> list[T] | None:
        """For `zip(a, b, ...)` (also in `list(...)`, or a local bound once to one) of which some
        argument is a tensor or a list of tensors: the kind of each tuple element (TENSOR for those,
        UNKNOWN for the others); else None."""
        assert self.env is not None
        if isinstance(arg, cst.Name):
            arg = self._single_binding(arg.value)
        if (isinstance(arg, cst.Call) and isinstance(arg.func, cst.Name) and arg.func.value == "list"
                and len(arg.args) == 1 and not self._is_shadowed("list")):
            arg = arg.args[0].value
        if not (isinstance(arg, cst.Call) and isinstance(arg.func, cst.Name) and arg.func.value == "zip"
                and not self._is_shadowed("zip") and arg.args
                and all(a.keyword is None and not a.star for a in arg.args)):
            return None
        kinds = [T.TENSOR if self.env.kind(a.value) in (T.TENSOR_SEQ, *TENSORISH) and not self._only_guessed(a.value)
                 else T.UNKNOWN for a in arg.args]
        return kinds if T.TENSOR in kinds else None

    def _key_picks_tensor(self, func: cst.BaseExpression, elements: list[T]) -> bool:
        """`key=lambda p: ...` over zipped tuples or a tensor dict's `items()` whose body is a
        tensor: `p[k]` (k an integer literal) picking a tensor element, or an expression of such
        picks (`lambda kv: kv[1].mean()`); sorting compares tensors with `<` (GB0207, measured on
        2.13 and 2.15). A body that reads `p` otherwise, or picks a non-tensor element, is not
        matched."""
        assert self.env is not None
        if not (isinstance(func, cst.Lambda) and len(func.params.params) == 1
                and not isinstance(func.params.star_arg, cst.Param)):
            return False
        param = func.params.params[0].name.value
        picks = [n for n in iter_nodes(func.body, cst.Subscript) if isinstance(n.value, cst.Name)
                 and n.value.value == param]
        if not picks or sum(1 for n in iter_nodes(func.body, cst.Name) if n.value == param) != len(picks):
            return False  # `p` read other than as `p[k]`
        for pick in picks:
            index = pick.slice[0].slice if len(pick.slice) == 1 else None
            if not (isinstance(index, cst.Index) and isinstance(index.value, cst.Integer)):
                return False
            k = int(index.value.value)
            if not (k < len(elements) and elements[k] is T.TENSOR):
                return False
        scope = TypeEnv(self.info, parent=self.env)
        scope.names[param] = T.TENSOR_SEQ  # each `p[k]` of the body is a tensor
        return scope.kind(func.body) in TENSORISH


# Which checks visit_Call runs through `_call_patterns` (errors.rules_at_risk).
METHOD_CHECKS: dict[str, tuple[str, ...]] = {
    "visit_Call": ("requires-grad-factory", "one-hot-data-dependent", "nested-strided", "check-message-text",
                   "check-message-tensor", "tensor-assert",
                   "sort-tensors", "sort-tensor-pairs", "max-min-tensor-key", "rnn-module-call", "script-module-call",
                   "join-formatted-tensors",
                   "generator-in-region",
                   "repeat-interleave-tensor", "backward-hook-module", "optimizer-disabled-method",
                   "optimizer-step-break", "numpy-random-scalar", "as-subclass-plain-tensor",
                   "transformer-mask-causal-test"),
    "visit_ClassDef": ("class-in-region",),
}


def _is_self_attr(node: cst.BaseExpression, attr: str) -> bool:
    """`self.<attr>`."""
    return (isinstance(node, cst.Attribute) and node.attr.value == attr and isinstance(node.value, cst.Name)
            and node.value.value == "self")
