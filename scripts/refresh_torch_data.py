"""Refresh the torch-derived data under rules/data/ from the installed torch (imports torch).

Writes, each stamped with the torch version it came from:

- `rules/data/torch-ops.json`: the ATen operators tagged `torch.Tag.dynamic_output_shape`,
  `data_dependent_output` and `inplace_view` (walking every `torch.ops.aten` overload packet), and the
  Python names users call for them (`torch.nonzero`, `Tensor.nonzero`, ...). A rule's
  `[match] torch_ops = ["dynamic_output_shape"]` adds those names to its `calls` / `tensor_methods`
  (breakscan/catalog.py).
  It also holds, as the pseudo-tag `numpy_untraced`, the NumPy functions Dynamo wraps as NumPy
  calls but cannot map to `torch._numpy` (GB0294 when called in a region), found with Dynamo's own
  `trace_rules.is_numpy` and `get_np_to_tnp_map` for the installed NumPy (stamped `numpy`).
  It also lists the `torch.X` Python functions annotated to return a Python value
  (`python_value_returns`: `torch.seed`, `torch.initial_seed`, ...), which the tensor inference
  reads (breakscan/static/tensors.py).
  Its tag `numpy_python_result` lists the NumPy functions `torch._numpy` maps whose result is a
  Python `int`/`bool` or a dtype (`np.size`, `np.ndim`, `np.isscalar`, `np.result_type`...), found
  by calling each on `torch._numpy` arrays: Dynamo cannot put that result in the graph (GB0208;
  BRK276 matches them).
  Its tag `nn_parameter_ctor` lists the `torch.nn` module classes whose construction with default
  options creates an `nn.Parameter` (found by constructing each with small integer arguments and
  listing its parameters): Dynamo breaks on that constructor inside a compiled region (GB0264;
  BRK303 matches them through `torch_ops = ["nn_parameter_ctor"]`).
  Its tag `dynamo_skipped_functions` lists the torch functions that `manual_torch_name_rule_map` in
  `torch/_dynamo/trace_rules.py` maps to `SkipFunctionVariable` (Dynamo breaks the graph on a call,
  GB0007), less those another rule's `[match] calls` already names (BRK240 matches the rest), and
  the public functions of torch's public modules that Dynamo skips with their module
  (`MOD_SKIPLIST`: `torch.utils.data.get_worker_info`, `torch.cuda.tunable.enable`...), each
  confirmed by a `fullgraph=True` compile of a call to it.
  Its tag `thirdparty_skipped` lists `package.*` for each third-party package in Dynamo's
  `THIRDPARTY_SKIPLIST` but NumPy (tqdm, pandas, networkx, sklearn...; BRK251 matches the calls).
  Its tag `stdlib_c_skipped` lists the standard library's C functions that Dynamo marks as skipped
  (`bisect.bisect`, `heapq.heappush`, `os.getpid`...), each confirmed by a `fullgraph=True` compile
  of a call to it (BRK214 matches them).
- `rules/data/dynamo-skips.json`: what Dynamo's `torch/_dynamo/trace_rules.py` skips or inlines: the
  builtin and third-party skip lists, torch's module skip/inline lists, the torch functions
  `manual_torch_name_rule_map` marks as skipped or inlined, force-skipped files.

Usage: python scripts/refresh_torch_data.py [--out rules/data] [--newer-torch /tmp/torch-2.15/bin/python]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
TAGS = ("dynamic_output_shape", "data_dependent_output", "inplace_view")
# Private ATen ops reached through a public Python function (torch/functional.py: torch.unique calls
# torch._unique2, or torch.unique_dim when dim= is given, and _unique on older paths; ctc_loss is
# CompositeImplicitAutograd over _ctc_loss).
PRIVATE_WRAPPERS = {"_unique": "unique", "_unique2": "unique", "unique_dim": "unique",
                    "unique_dim_consecutive": "unique_consecutive", "_ctc_loss": "ctc_loss"}
# ATen ops named `<namespace>_<name>` that Python exposes as `torch.<namespace>.<name>`
# (native_functions.yaml's python_module: linalg, special, fft).
NAMESPACED_OPS = ("linalg", "special", "fft")
# Public composite ops that are defined as a tagged op: `argwhere(x)` is `nonzero(x)`
# (CompositeImplicitAutograd in native_functions.yaml), so it inherits its dynamic output shape.
COMPOSITES = {"nonzero": ("argwhere",)}
# Tagged ops a by-name match would over-report: the tag is on one overload or one argument form.
NOT_BY_NAME = {
    "index": "`x[mask]` with a boolean mask (index.Tensor): a subscript, not a call; BRK106 matches it",
    "one_hot": "breaks only when num_classes is left at -1 (GB0246); with num_classes= it is static",
    "repeat_interleave": "only the Tensor-repeats overload is tagged; an int `repeats` is static",
    "_local_scalar_dense": "the kernel behind Tensor.item(); users do not call it",
}


def tagged_ops(tag: torch.Tag) -> list[str]:
    """Names (`packet` or `packet.overload`) of the ATen overloads carrying `tag`, sorted."""
    found = []
    # every registered ATen op: `dir(torch.ops.aten)` lists only the packets already loaded
    names = sorted({op.split("::", 1)[1].split(".")[0] for op in torch._C._dispatch_get_all_op_names()
                    if op.startswith("aten::")})
    for name in names:
        packet = getattr(torch.ops.aten, name, None)
        if not isinstance(packet, torch._ops.OpOverloadPacket):
            continue
        for overload in packet.overloads():
            if tag in getattr(packet, overload).tags:
                found.append(name if overload == "default" else f"{name}.{overload}")
    return sorted(found)


def _python_functions(name: str) -> list[str]:
    """The public Python functions named after ATen op `name`: `torch.name`,
    `torch.nn.functional.name`, and `torch.<namespace>.<rest>` for `<namespace>_<rest>`
    (`linalg_lstsq` is `torch.linalg.lstsq`)."""
    found = [f"{owner}.{name}" for owner, module in (("torch", torch), ("torch.nn.functional", torch.nn.functional))
             if callable(getattr(module, name, None))]
    namespace, _, rest = name.partition("_")
    if namespace in NAMESPACED_OPS and callable(getattr(getattr(torch, namespace), rest, None)):
        found.append(f"torch.{namespace}.{rest}")
    return found


def python_names(aten: list[str]) -> dict:
    """The names users write for these ATen ops: `torch.X` / `torch.nn.functional.X` /
    `torch.linalg.X` calls and Tensor methods."""
    calls: set[str] = set()
    methods: set[str] = set()
    skipped: dict[str, str] = {}
    for packet in sorted({a.split(".")[0] for a in aten}):
        if packet in NOT_BY_NAME:
            skipped[packet] = NOT_BY_NAME[packet]
            continue
        public = PRIVATE_WRAPPERS.get(packet, packet)
        found = False
        for name in (public, *COMPOSITES.get(public, ())):
            functions = _python_functions(name)
            calls.update(functions)
            is_method = callable(getattr(torch.Tensor, name, None))
            if is_method:
                methods.add(name)
            found = found or bool(functions) or is_method
        if not found:
            skipped[packet] = "no public Python function or Tensor method of that name"
    return {"aten": aten, "calls": sorted(calls), "tensor_methods": sorted(methods), "not_by_name": skipped}


# Return annotations that name a Python value (not a tensor, a tuple of them, or anything).
PYTHON_VALUE_ANNOTATIONS = {"int", "bool", "str", "float", "None", "TypeGuard", "TypeIs", "torch.device",
                            "torch.dtype", "Generator", "torch._C.Generator | None"}


def python_value_returns() -> list[str]:
    """`torch.X` Python functions whose return annotation is a Python value (`torch.seed() -> int`),
    read with inspect from the installed torch: the static pass takes their results for Python
    values, not tensors (breakscan.static.tensors)."""
    import inspect

    found = []
    for name in dir(torch):
        obj = getattr(torch, name, None)
        if name.startswith("_") or not inspect.isfunction(obj):
            continue
        try:
            ann = inspect.signature(obj).return_annotation
        except (TypeError, ValueError):
            continue
        text = ann if isinstance(ann, str) else getattr(ann, "__name__", None) or str(ann)
        if str(text) in PYTHON_VALUE_ANNOTATIONS:
            found.append(f"torch.{name}")
    return sorted(found)


def _numpy_functions():
    """(qualified name, function) for the public functions, not classes, of the NumPy modules
    Dynamo maps to `torch._numpy` (`torch._dynamo.utils.NP_TO_TNP_MODULE`), each module's sorted."""
    import inspect

    from torch._dynamo.utils import NP_TO_TNP_MODULE

    for mod in NP_TO_TNP_MODULE:
        for name, value in sorted(vars(mod).items()):
            if not name.startswith("_") and callable(value) and not inspect.isclass(value):
                yield f"{mod.__name__}.{name}", value


def numpy_untraced() -> dict:
    """NumPy functions Dynamo turns into a NumPy call (`trace_rules.is_numpy`) that have no
    `torch._numpy` counterpart (`variables.misc.get_np_to_tnp_map`): calling one in a region breaks
    with "attempted to trace numpy function unsupported by PyTorch" (GB0294). Classes are left out
    (constructors take other paths). `numpy.random` functions are in (`beta`, `permutation`,
    `poisson`: GB0294 on 2.13), except `default_rng`, which BRK206 matches with the scalar draws."""
    import numpy as np
    from torch._dynamo import trace_rules
    from torch._dynamo.variables.misc import get_np_to_tnp_map

    mapped = get_np_to_tnp_map()
    calls = sorted(name for name, value in _numpy_functions()
                   if value is not np.random.default_rng and trace_rules.is_numpy(value) and value not in mapped)
    return {"numpy": np.__version__, "calls": calls, "tensor_methods": []}


def numpy_python_result() -> dict:
    """NumPy functions that `torch._numpy` maps (`variables.misc.get_np_to_tnp_map`) but whose
    result is a Python `int` or `bool` or a dtype, not an array: Dynamo records the call as a graph
    node and cannot put that result in the FX graph ("torch.* op returned non-Tensor", GB0208, in
    `variables/builder.py`; a `float` result becomes a constant, a tuple is unpacked). Found by
    calling each mapped function, as Dynamo would, on a 1-dim and a 2-dim `torch._numpy` array: a
    function listed gave no array for every call that worked. Functions Dynamo folds as constants
    or turns into constant collections (`np.dtype`, `np.finfo`) and `numpy.random` are left out."""
    import numpy as np
    import torch._numpy as tnp
    from torch._dynamo.variables.misc import NumpyVariable, get_np_to_tnp_map

    mapped = get_np_to_tnp_map()
    samples = (tnp.asarray([1.0, 2.0]), tnp.asarray([[1.0, 2.0], [3.0, 4.0]]))
    calls = []
    for name, value in _numpy_functions():
        func = mapped.get(value)
        if func is None or func.__module__ == "torch._numpy.random" or NumpyVariable.can_constant_fold_through(func) \
                or NumpyVariable.get_constant_collection_for_func(func) is not None:
            continue
        results = []
        for sample in samples:
            try:
                results.append(func(sample))
            except Exception:  # noqa: BLE001 - a function that needs other arguments: not probed
                continue
        # an int or bool (bool is an int), or a dtype object; never an array, float, tuple or None
        if results and all(isinstance(r, int) or "dtype" in type(r).__name__.lower() for r in results):
            calls.append(name)
    return {"numpy": np.__version__, "calls": sorted(calls), "tensor_methods": []}


def nn_parameter_ctor() -> dict:
    """The `torch.nn` module classes that create an `nn.Parameter` when built with default options.

    Each public `nn.Module` subclass in `torch.nn` is constructed with its required arguments set to
    4 (`nn.Linear(4, 4)`, `nn.LayerNorm(4)`); a class whose instance then has a parameter (not a
    lazy `UninitializedParameter`) is listed. A class that cannot be built that way is left out
    (precision first): `not_by_name` says why. `nn.InstanceNorm2d(4)` (affine=False by default)
    creates none, so it is not listed.
    """
    import inspect
    import warnings

    calls, skipped = [], {}
    for name in sorted(dir(torch.nn)):
        cls = getattr(torch.nn, name)
        if name.startswith("_") or not (inspect.isclass(cls) and issubclass(cls, torch.nn.Module)):
            continue
        try:
            required = [p for p in inspect.signature(cls).parameters.values()
                        if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                module = cls(*[4] * len(required))
        except Exception as exc:  # noqa: BLE001 - any class that needs real arguments is left out
            skipped[name] = f"not built with integer arguments: {type(exc).__name__}"
            continue
        params = list(module.parameters())
        if params and not any(isinstance(p, torch.nn.parameter.UninitializedParameter) for p in params):
            calls.append(f"torch.nn.{name}")
    return {"calls": calls, "tensor_methods": [], "not_by_name": skipped}


def _claimed_calls() -> dict[str, str]:
    """The `[match] calls` patterns the rules under rules/ list: pattern -> the first rule's id."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    claimed: dict[str, str] = {}
    for path in sorted((ROOT / "rules").glob("BRK*.toml")):
        rule = tomllib.loads(path.read_text(encoding="utf-8"))
        for name in rule.get("match", {}).get("calls", ()):
            claimed.setdefault(name, rule["id"])
    return claimed


def dynamo_skipped_functions() -> dict:
    """The torch functions Dynamo marks as skipped (`manual_torch_name_rule_map`), as calls to match.

    Methods of objects (`torch.default_generator#seed`) are left out (not called by a dotted name);
    so are the names another rule under rules/ already lists in `[match] calls` (`torch.manual_seed`
    is BRK215's), so that one call is reported once.
    """
    from torch._dynamo import trace_rules as tr
    from torch._dynamo.variables import SkipFunctionVariable

    claimed = _claimed_calls()
    calls, skipped = [], {}
    for name, kind in sorted(tr.manual_torch_name_rule_map.items()):
        if kind is not SkipFunctionVariable:
            continue
        if "#" in name:
            skipped[name] = "a method of an object, not called by this dotted name"
        elif name in claimed:
            skipped[name] = f"matched by {claimed[name]}"
        else:
            calls.append(name)
    return {"calls": calls + module_skipped_functions(set(calls)), "tensor_methods": [], "not_by_name": skipped}


# Public submodules walked besides the public entries of trace_rules.MOD_SKIPLIST (whose own
# module-level functions only are read): where users reach skipped functions from.
SKIPPED_MODULES_EXTRA = ("torch.utils.data", "torch.utils.checkpoint", "torch.backends.cuda", "torch.backends.cudnn",
                         "torch.cuda.amp", "torch.autograd.graph")


# torch.compiler's functions decide what Dynamo traces (disable, allow_in_graph, nonstrict_trace...):
# breakscan models each itself (breakscan/static/index.py, trace_marker), not as a skipped call.
SKIPPED_MODULES_NOT_WALKED = {"torch.compiler"}


def module_skipped_functions(known: set[str]) -> list[str]:
    """The public functions of torch's public modules that Dynamo skips because their module is
    in `trace_rules.MOD_SKIPLIST` (`torch.utils.data.get_worker_info`, `torch.cuda.memory_allocated`,
    `torch.autograd.gradcheck`...), by the module path users import them from. Each is
    confirmed on the installed torch: `trace_rules.lookup` gives SkipFunctionVariable and a
    `fullgraph=True` compile of a call to it fails with "marked as skipped" (nothing runs: a
    handled function such as `torch.utils.checkpoint.checkpoint` fails otherwise, and is left
    out). Names in `known` or another rule's `[match] calls` are left out."""
    import contextlib
    import fnmatch
    import importlib
    import io
    import types
    import warnings

    from torch._dynamo import trace_rules as tr

    claimed = _claimed_calls()
    public = sorted(m for m in tr.MOD_SKIPLIST if m.startswith("torch.") and m not in SKIPPED_MODULES_NOT_WALKED
                    and not any(part.startswith("_") for part in m.split(".")))
    found = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecated aliases (`torch.distributed.reduce_op`) warn when read
        for module_name in sorted(set(public) | set(SKIPPED_MODULES_EXTRA)):
            try:
                with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
                    warnings.simplefilter("ignore")
                    module = importlib.import_module(module_name)
            except Exception:  # not in this build (torch.fb) or needs an optional package
                continue
            names = getattr(module, "__all__", None)
            items = sorted((attr, getattr(module, attr, None)) for attr in (names if names is not None else list(vars(module)))
                           if isinstance(attr, str) and not attr.startswith("_"))
            for attr, value in items:
                dotted = f"{module_name}.{attr}"
                if not isinstance(value, (types.FunctionType, types.BuiltinFunctionType)) \
                        or not (getattr(value, "__module__", None) or "").startswith("torch") \
                        or dotted in known or any(fnmatch.fnmatchcase(dotted, pattern) for pattern in claimed):
                    continue
                if _confirmed_skipped(value):
                    found.append(dotted)
    return found


def thirdparty_skipped() -> dict:
    """Calls into the third-party packages Dynamo skips (`trace_rules.THIRDPARTY_SKIPLIST`: tqdm,
    pandas, networkx, sklearn...), as `package.*` patterns: a call of one in a compiled region breaks
    ("Attempted to call function marked as skipped", GB0007). NumPy is left out: Dynamo traces
    NumPy through torch._numpy (what it lacks is `numpy_untraced`)."""
    from torch._dynamo import trace_rules as tr

    packages = sorted(name for name in tr.THIRDPARTY_SKIPLIST if name != "numpy")
    return {"calls": [f"{name}.*" for name in packages], "tensor_methods": []}


# Standard-library modules not imported to look for C functions: GUI, platform-specific or
# side effects on import (`this` prints, `antigravity` opens a browser), and the modules whose
# functions Dynamo handles itself (`builtins`, `operator`, `math`: trace_rules.is_builtin_callable).
STDLIB_NOT_IMPORTED = {
    "antigravity", "this", "tkinter", "turtle", "turtledemo", "idlelib", "pydoc_data", "ensurepip", "venv",
    "lib2to3", "msilib", "winreg", "winsound", "msvcrt", "nt", "ntpath", "pty", "tty", "readline", "curses",
    "crypt", "nis", "ossaudiodev", "spwd", "sqlite3", "dbm", "xxlimited", "xxsubtype", "test", "unittest",
    "builtins", "operator", "math",
}


def stdlib_c_skipped() -> dict:
    """The C functions of the standard library (module-level `builtin_function_or_method`s of
    `sys.stdlib_module_names`, in the module's `__all__`, or without one defined by it or by its
    C module, `_bisect` for `bisect`) that Dynamo marks as skipped: a call of one in a
    compiled region breaks ("Attempted to call function marked as skipped", GB0007;
    `bisect.bisect`, `heapq.heappush`, `os.getpid`, `binascii.crc32`...). Each is confirmed on the
    installed torch: a `fullgraph=True` compile of a function calling it must fail with that
    message (under fullgraph nothing runs eagerly, so the function itself is never called).
    Names another rule under rules/ already matches (`time.*`, `zlib.*`) are left out, so that a
    call is reported once."""
    import contextlib
    import fnmatch
    import importlib
    import io
    import types
    import warnings

    from torch._dynamo import trace_rules as tr

    claimed = _claimed_calls()
    found = []
    for module_name in sorted(sys.stdlib_module_names):
        if module_name.startswith("_") or module_name in STDLIB_NOT_IMPORTED:
            continue
        try:
            with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
                warnings.simplefilter("ignore")
                module = importlib.import_module(module_name)
        except Exception:  # not built on this platform
            continue
        public = getattr(module, "__all__", None)  # else its own and its C module's functions
        for attr, value in sorted(vars(module).items()):
            dotted = f"{module_name}.{attr}"
            if attr.startswith("_") or type(value) is not types.BuiltinFunctionType \
                    or (attr not in public if public is not None
                        else (getattr(value, "__module__", None) or "").lstrip("_") != module_name) \
                    or not isinstance(getattr(value, "__self__", None), types.ModuleType) \
                    or tr.is_builtin_callable(value) or tr.is_polyfilled_callable(value) \
                    or any(fnmatch.fnmatchcase(dotted, pattern) for pattern in claimed):
                continue
            if _confirmed_skipped(value):
                found.append(dotted)
    return {"python": ".".join(map(str, sys.version_info[:2])), "calls": found, "tensor_methods": []}


def _confirmed_skipped(fn) -> bool:
    """Dynamo's `trace_rules.lookup` skips `fn`, and a `fullgraph=True` compile of a call to it
    fails with "marked as skipped" (nothing runs: the call is refused while tracing)."""
    from torch._dynamo import trace_rules as tr
    from torch._dynamo.variables import SkipFunctionVariable

    try:
        if tr.lookup(fn) is not SkipFunctionVariable:
            return False
    except Exception:  # an object lookup cannot classify
        return False
    return _skipped_under_fullgraph(fn)


def _skipped_under_fullgraph(fn) -> bool:
    import warnings

    def calls_it(x):
        fn()
        return x + 1

    torch._dynamo.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            torch.compile(calls_it, backend="eager", fullgraph=True)(torch.ones(1))
        except Exception as e:  # torch._dynamo.exc.Unsupported
            return "marked as skipped" in str(e)
    return False


def optimizer_disabled_methods() -> dict:
    """The methods of `torch.optim` classes that torch wraps in `torch._disable_dynamo`
    (`Optimizer.zero_grad`, `state_dict`, `load_state_dict`, `add_param_group` on 2.13): called
    on an optimizer inside a compiled region, Dynamo will not inline them and the graph breaks
    ("Attempted to inline function marked as skipped", GB0008); and, as `step_breaks`, the
    optimizer classes whose `step` breaks the graph on purpose (`_use_grad_for_differentiable`).
    Found by the wrappers' code objects, not by name."""
    import inspect

    import torch.optim.lr_scheduler

    wrapper = torch._compile._disable_dynamo(lambda: None).__code__
    methods = set()
    for mod in (torch.optim, torch.optim.lr_scheduler):
        for cls in vars(mod).values():
            if not inspect.isclass(cls) or not issubclass(cls, torch.optim.Optimizer):
                continue
            for klass in cls.__mro__:
                for name, value in vars(klass).items():
                    if not name.startswith("_") and inspect.isfunction(value) and value.__code__ is wrapper:
                        methods.add(name)
    # `step` wrapped by `_use_grad_for_differentiable`: it calls torch._dynamo.graph_break() before
    # and after the update on purpose (pytorch/pytorch#104053; GB0025 at the caller's line).
    from torch.optim.optimizer import _use_grad_for_differentiable

    use_grad = _use_grad_for_differentiable(lambda self: None).__code__
    step_breaks = sorted(
        f"torch.optim.{name}" for name, cls in vars(torch.optim).items()
        if inspect.isclass(cls) and issubclass(cls, torch.optim.Optimizer)
        and getattr(next((vars(k)["step"] for k in cls.__mro__ if "step" in vars(k)), None), "__code__", None) is use_grad)
    return {"calls": [], "tensor_methods": [], "methods": sorted(methods), "step_breaks": step_breaks}


def tensor_method_names() -> list[str]:
    """The public attribute names of `torch.Tensor` (methods and properties): a method a value
    the inference takes for a tensor does not have is a subclass's own (`MetaTensor.peek_pending_rank`)."""
    return sorted(name for name in dir(torch.Tensor) if not name.startswith("__"))


def ndarray_method_names() -> list[str]:
    """The public attribute names of `numpy.ndarray`: Dynamo traces NumPy arrays as tensors
    (torch._numpy), so the inference's tensors include them (`a.astype(np.uint)`)."""
    import numpy

    return sorted(name for name in dir(numpy.ndarray) if not name.startswith("__"))


def torch_ops() -> dict:
    """The contents of rules/data/torch-ops.json."""
    tags = {tag: python_names(tagged_ops(getattr(torch.Tag, tag))) for tag in TAGS}
    tags["numpy_untraced"] = numpy_untraced()
    tags["numpy_python_result"] = numpy_python_result()
    tags["nn_parameter_ctor"] = nn_parameter_ctor()
    tags["dynamo_skipped_functions"] = dynamo_skipped_functions()
    tags["thirdparty_skipped"] = thirdparty_skipped()
    tags["optimizer_disabled"] = optimizer_disabled_methods()
    tags["stdlib_c_skipped"] = stdlib_c_skipped()
    return {
        "torch": torch.__version__,
        "generated_by": "scripts/refresh_torch_data.py",
        "tags": tags,
        "python_value_returns": python_value_returns(),
        "tensor_method_names": tensor_method_names(),
        "ndarray_method_names": ndarray_method_names(),
    }


def _module_name(mod) -> str:
    return mod if isinstance(mod, str) else mod.__name__


def dynamo_skips() -> dict:
    """The contents of rules/data/dynamo-skips.json, read from torch._dynamo.trace_rules."""
    from torch._dynamo import trace_rules as tr
    from torch._dynamo.variables import SkipFunctionVariable, UserFunctionVariable

    torch_dir = Path(torch.__file__).parent
    rules = tr.manual_torch_name_rule_map
    return {
        "torch": torch.__version__,
        "generated_by": "scripts/refresh_torch_data.py",
        "source": "torch/_dynamo/trace_rules.py",
        "order": "manual_torch_name_rule_map, then MOD_INLINELIST / LEGACY_MOD_INLINELIST (inline), "
                 "then BUILTIN_SKIPLIST / THIRDPARTY_SKIPLIST / MOD_SKIPLIST (skip), else inline",
        "builtin_skiplist": sorted(_module_name(m) for m in tr.BUILTIN_SKIPLIST),
        "builtin_inline_when_called": sorted(
            _module_name(m) for m in tr.BUILTIN_SKIPLIST
            if tr._module_dir(m) in tr.BUILTIN_INLINE_WHEN_CALLED),
        "thirdparty_skiplist": sorted(tr.THIRDPARTY_SKIPLIST),
        "mod_skiplist": sorted(tr.MOD_SKIPLIST),
        "mod_inlinelist": sorted(tr.MOD_INLINELIST),
        "legacy_mod_inlinelist": sorted(tr.LEGACY_MOD_INLINELIST),
        "force_skip_files": sorted(
            "torch." + str(Path(f).relative_to(torch_dir).with_suffix("")).replace("/", ".")
            for f in tr.FORCE_SKIP_FILES),
        "unittest": "skipped unless torch._dynamo.config.enable_trace_unittest",
        "skipped_functions": sorted(n for n, v in rules.items() if v is SkipFunctionVariable),
        "inlined_functions": sorted(n for n, v in rules.items() if v is UserFunctionVariable),
    }


def _newer_skipped(newer_python: str) -> dict:
    """What a newer torch skips, from this script's `--skipped-only` run under `newer_python` (a
    venv with that torch): {"torch": "2.15", "stdlib": [...], "torch_functions": [...]}."""
    import subprocess

    out = subprocess.run([newer_python, __file__, "--skipped-only"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _traced_by_newer(tag: str, own: list[str], newer: dict | None, key: str) -> dict[str, list[str]]:
    """A tag's `traced_by`: for a newer torch, the names of `own` it does not skip (its
    polyfills: `heapq.heappush` on 2.15), so that the rule flags them only before that version
    (breakscan/catalog.py turns each into a `[match.torch]` range). `newer`: _newer_skipped's
    answer (its list `key`); without one, the committed file's entries are kept."""
    if newer is None:
        try:
            committed = json.loads((ROOT / "rules" / "data" / "torch-ops.json").read_text(encoding="utf-8"))
            return committed["tags"][tag].get("traced_by", {})
        except (OSError, ValueError, KeyError):
            return {}
    traced = sorted(set(own) - set(newer[key]))
    return {newer["torch"]: traced} if traced else {}


def main(argv: list[str] | None = None) -> int:
    """Write both files; print what changed in size."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "rules" / "data")
    parser.add_argument("--newer-torch", metavar="PYTHON",
                        help="an interpreter with a newer torch: record the skipped functions it traces")
    parser.add_argument("--skipped-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.skipped_only:  # for --newer-torch: this torch's lists, as one JSON line
        version = ".".join(torch.__version__.split(".")[:2])
        print(json.dumps({"torch": version, "stdlib": stdlib_c_skipped()["calls"],
                          "torch_functions": dynamo_skipped_functions()["calls"]}))
        return 0
    ops = torch_ops()
    newer = _newer_skipped(args.newer_torch) if args.newer_torch else None
    tags = ops["tags"]
    tags["stdlib_c_skipped"]["traced_by"] = _traced_by_newer(
        "stdlib_c_skipped", tags["stdlib_c_skipped"]["calls"], newer, "stdlib")
    tags["dynamo_skipped_functions"]["traced_by"] = _traced_by_newer(
        "dynamo_skipped_functions", tags["dynamo_skipped_functions"]["calls"], newer, "torch_functions")
    args.out.mkdir(parents=True, exist_ok=True)
    for name, data in (("torch-ops.json", ops), ("dynamo-skips.json", dynamo_skips())):
        path = args.out / name
        path.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n", encoding="utf-8")
        print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: torch {data['torch']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
