"""Every rule in the catalog is well formed, and its examples are confirmed by real Dynamo.

Static part (no torch): the rule files parse, ids are unique and carry a valid family prefix,
every breaking example marks the line Dynamo reports with `# expect: <rule id>`.

Dynamic part (`-m dynamic`, needs torch): each breaking example, compiled in default mode with
`backend="eager"`, breaks (or falls back, or recompiles, for the rule's kind) with one of the
rule's graph-break ids for the installed torch (`Rule.gb_ids_for`) on every `# expect:` line;
each fixed example compiles with no break, no frame fallback and no recompile. An example with
its own `torch` range (a pattern with a `[match.torch]` range) breaks inside that range and
compiles cleanly outside it: the range is exact. One process, `torch._dynamo.reset()` between
examples. Marked `versions`: bench/versions.py and CI's newest-release environment run it on
every torch release.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import logging
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from breakscan.catalog import FAMILIES, Rule, gb_id_for_type, gb_registry_entry, load_catalog
from breakscan.dynamic.probe import keep_nested_frames, keep_repeated_break_stacks

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

pytestmark = pytest.mark.versions

RULES = load_catalog()
RULE_LIST = list(RULES.values())
WITH_EXAMPLES = [r for r in RULE_LIST if r.breaking or r.fixed]

_EXPECT = re.compile(r"#\s*expect:\s*(BRK\d{3}(?:\s*,\s*BRK\d{3})*)")
_MATCH_KEYS = {"calls", "logger_methods", "tensor_methods", "torch_ops", "check", "description", "torch"}
_KEBAB = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_GB_ID = re.compile(r"^GB\d{4}$")


def _raw(rule: Rule) -> dict:
    assert rule.source is not None
    return tomllib.loads(rule.source.read_text(encoding="utf-8"))


def _expect_lines(code: str, rule_id: str) -> list[int]:
    """1-based lines of `code` carrying `# expect: ...` that names `rule_id`."""
    out = []
    for n, line in enumerate(code.splitlines(), 1):
        m = _EXPECT.search(line)
        if m and rule_id in re.split(r"\s*,\s*", m.group(1)):
            out.append(n)
    return out


# --------------------------------------------------------------------------- static checks


def test_catalog_is_not_empty_and_names_unique():
    assert len(RULES) >= 1
    names = [r.name for r in RULE_LIST]
    assert len(names) == len(set(names)), "rule names must be unique"


@pytest.mark.parametrize("rule", RULE_LIST, ids=lambda r: r.id)
def test_rule_file_is_well_formed(rule: Rule):
    raw = _raw(rule)
    assert rule.source is not None and rule.source.stem == rule.id, "file is named after its id"
    assert rule.family in FAMILIES, f"unknown family prefix {rule.family}"
    assert _KEBAB.match(rule.name), f"name {rule.name!r} is not kebab-case"
    assert rule.title and rule.message and rule.rationale and rule.fix
    assert rule.precision in {"high", "medium", "low"}
    for gb in rule.gb_ids:
        assert _GB_ID.match(gb), f"bad graph-break id {gb!r}"
    if rule.kind.value in ("graph-break", "frame-fallback") and raw.get("requires") != "distributed":
        # (a `distributed` rule's split is made by DDPOptimizer: no Dynamo graph-break id)
        assert rule.gb_ids, "a graph-break / fallback rule names its Dynamo graph-break ids"
    unknown = set(rule.match) - _MATCH_KEYS
    assert not unknown, f"[match] keys outside the static vocabulary: {unknown}"
    if "check" in rule.match:
        assert rule.match.get("description"), "a named check needs a precise description"
    if rule.family == "BRK9":
        return  # breakscan's own errors: no code pattern, no example to confirm
    assert raw.get("verified"), "state the torch versions the examples were confirmed on"
    for entry in raw.get("gb_ids_by_torch", ()):
        assert entry["gb_ids"] and all(_GB_ID.match(gb) for gb in entry["gb_ids"]), entry
    assert rule.breaking and rule.fixed, "a rule needs a breaking and a fixed example"


@pytest.mark.parametrize("rule", WITH_EXAMPLES, ids=lambda r: r.id)
def test_examples_parse_and_mark_the_break(rule: Rule):
    for ex in rule.breaking + rule.fixed:
        tree = ast.parse(ex.code)
        defs = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        assert "breakscan_examples" in defs
    for ex in rule.breaking:
        assert _expect_lines(ex.code, rule.id), f"breaking example lacks `# expect: {rule.id}`"
    for ex in rule.fixed:
        assert not _EXPECT.search(ex.code), "a fixed example must not expect a break"


@pytest.mark.parametrize("rule", RULE_LIST, ids=lambda r: r.id)
def test_gb_ids_exist_in_installed_registry(rule: Rule):
    if importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed")
    for gb in rule.gb_ids_for(_torch_version()):
        assert gb_registry_entry(gb) is not None, f"{gb} is not in torch's graph_break_registry.json"


# --------------------------------------------------------------------------- the Dynamo oracle

_BREAK_LOGGERS = (
    "torch._dynamo.symbolic_convert.__graph_breaks",
    "torch._dynamo.convert_frame.__graph_breaks",
    "torch._dynamo.exc.__graph_breaks",
)
_RECOMPILE_LOGGERS = ("torch._dynamo.guards.__recompiles",)
# A frame Dynamo refuses before tracing it (a generator frame: "Attempt to trace generator") is
# reported only as convert_frame's "WON'T CONVERT" record (INFO), as the dynamic pass reads it.
_WONT_CONVERT_LOGGER = "torch._dynamo.convert_frame"
_AT = re.compile(r"[Gg]raph [Bb]reak.*? in user code at (.+):(\d+)")
_GB_LINK = re.compile(r"/gb/gb(\d{4})\.html")
_FRAME = re.compile(r'File "([^"]+)", line (\d+)')


class _Grab(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[tuple[str, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.records.append((record.name, record.getMessage()))
        except Exception:  # pragma: no cover - a malformed record must not fail the run
            pass


@dataclass
class Observed:
    """What Dynamo did with one example module."""

    breaks: list[tuple[int, str | None]] = field(default_factory=list)  # (line in module, GB id)
    recompile_lines: list[int] = field(default_factory=list)
    recompiles: int = 0
    fallback: bool = False
    messages: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"breaks={self.breaks} recompiles={self.recompiles} at {self.recompile_lines} "
            f"fallback={self.fallback}\n" + "\n---\n".join(m[:1500] for m in self.messages)
        )


def _gb_type(msg: str) -> str:
    """The graph-break type of a break message: its `Graph Break Reason:` line."""
    m = re.search(r"^Graph Break Reason: (.+)$", msg, re.MULTILINE)
    return m.group(1).strip() if m else ""


def _load_module(code: str, path: Path):
    path.write_text(code, encoding="utf-8")
    name = f"_breakscan_example_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _observe(code: str, path: Path, device: str, backend: str = "eager", dynamic: bool | None = None,
             raises: str | None = None) -> Observed:
    """Run an example module's `breakscan_examples()` under default-mode compile with `backend`
    (`eager`; a rule whose break needs a backend other than Dynamo's own `eager` sets
    `[examples] backend`, e.g. `aot_eager`: Dynamo refuses functorch frames only then) and
    `dynamic` (`[examples] dynamic = true`: a rule about `torch.compile(dynamic=True)`).
    `raises` (`[examples] raises`, the breaking example only): the name of the exception class
    the compiled call raises (Dynamo fails instead of breaking, BRK269); its message gives the
    break (the user frame in the example module and the graph-break id of its link)."""
    import torch
    import torch._dynamo
    from torch._dynamo.utils import counters

    mod = _load_module(code, path)
    torch._dynamo.reset()
    counters.clear()
    torch._logging.set_logs(graph_breaks=True, recompiles=True)
    # Dynamo's traceback as the dynamic pass sees it: a user `forward` that calls a torch
    # module's `forward` kept, every repeated break with its stack (BRK275's break is in torch).
    keep_nested_frames(torch)
    keep_repeated_break_stacks(torch)
    grab = _Grab()
    saved = []
    for lname in _BREAK_LOGGERS + _RECOMPILE_LOGGERS:
        lg = logging.getLogger(lname)
        saved.append((lg, list(lg.handlers), lg.propagate))
        for h in list(lg.handlers):
            lg.removeHandler(h)
        lg.addHandler(grab)
        lg.propagate = False
    wont = logging.getLogger(_WONT_CONVERT_LOGGER)
    saved_level = wont.level
    wont.setLevel(logging.INFO)
    wont.addHandler(grab)
    compiled: dict[int, tuple[object, object]] = {}
    try:
        gen = mod.breakscan_examples
        items = gen(device) if "device" in inspect.signature(gen).parameters else gen()
        for item in items:
            fn, args = item[0], item[1]
            kwargs = item[2] if len(item) > 2 else {}
            if id(fn) not in compiled:
                target = getattr(fn, "_torchdynamo_orig_callable", None) or getattr(
                    fn, "_orig_mod", fn
                )
                compiled[id(fn)] = (fn, torch.compile(target, backend=backend, dynamic=dynamic))
            try:
                compiled[id(fn)][1](*args, **kwargs)
            except Exception as exc:
                if raises is None or type(exc).__name__ != raises:
                    raise
                grab.records.append(("raised", str(exc)))
    finally:
        for lg, handlers, propagate in saved:
            lg.removeHandler(grab)
            for h in handlers:
                lg.addHandler(h)
            lg.propagate = propagate
        wont.removeHandler(grab)
        wont.setLevel(saved_level)
        torch._logging.set_logs()
    out = Observed()
    me = str(path)
    for lname, msg in grab.records:
        if lname == _WONT_CONVERT_LOGGER:
            from breakscan.dynamic.parse import parse_wont_convert

            ev = parse_wont_convert(msg)
            if ev and ev["path"] == me:
                out.messages.append(msg)
                out.breaks.append((ev["line"], ev["gb_id"] or gb_id_for_type(ev["gb_type"]) or None))
                out.fallback = True
            continue
        out.messages.append(msg)
        frames = [(p, int(n)) for p, n in _FRAME.findall(msg)]
        mine = [n for p, n in frames if p == me]
        if lname in _RECOMPILE_LOGGERS:
            out.recompiles += 1
            out.recompile_lines.extend(mine)
            continue
        if lname == "raised":  # `raises`: the exception's own user frame and link
            link = _GB_LINK.search(msg)
            if mine:
                out.breaks.append((mine[-1], f"GB{link.group(1)}" if link else None))
            continue
        at = _AT.search(msg)
        if not at:
            continue
        link = _GB_LINK.search(msg)
        # No link (2.8): the installed registry's id for the message's graph-break type.
        gb = f"GB{link.group(1)}" if link else gb_id_for_type(_gb_type(msg)) or None
        if mine:  # innermost frame of the user stack that lies in the example module
            out.breaks.append((mine[-1], gb))
        elif at.group(1) == me:
            out.breaks.append((int(at.group(2)), gb))
    frames = counters["frames"]
    out.fallback = frames.get("total", 0) > frames.get("ok", 0)
    return out


def _torch_version() -> tuple[int, int] | None:
    import torch

    m = re.match(r"(\d+)\.(\d+)", torch.__version__)
    return (int(m.group(1)), int(m.group(2))) if m else None


def _dynamic_guard(rule: Rule) -> str:
    """Skip the dynamic tests where they cannot run; returns the device to use."""
    if importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed")
    import torch

    cuda = torch.cuda.is_available()
    if _raw(rule).get("requires") == "distributed":
        pytest.skip(f"{rule.id} needs several ranks: tests/test_distributed.py runs its examples under torchrun")
    if _raw(rule).get("requires") == "cuda" and not cuda:
        pytest.skip(f"{rule.id} needs a CUDA device")
    if not rule.applies_to(_torch_version()):
        pytest.skip(f"{rule.id} claims torch {rule.torch_versions}; installed {torch.__version__}")
    if not rule.applies_to_python():
        pytest.skip(f"{rule.id} claims Python {rule.python_versions}; running {sys.version.split()[0]}")
    return "cuda" if cuda else "cpu"


def _assert_clean(rule: Rule, obs: Observed, what: str) -> None:
    assert not obs.messages and not obs.fallback, f"{rule.id} {what}:\n{obs.summary()}"


@pytest.mark.dynamic
@pytest.mark.parametrize("rule", [r for r in WITH_EXAMPLES if r.breaking], ids=lambda r: r.id)
def test_breaking_example_is_confirmed_by_dynamo(rule: Rule, tmp_path: Path):
    device = _dynamic_guard(rule)
    raw = _raw(rule)
    version = _torch_version()
    gb_ids = rule.gb_ids_for(version)
    for i, ex in enumerate(rule.breaking):
        obs = _observe(ex.code, tmp_path / f"{rule.id}_breaking_{i}.py", device,
                       raw.get("examples", {}).get("backend", "eager"), raw.get("examples", {}).get("dynamic"),
                       raw.get("examples", {}).get("raises"))
        if not ex.applies_to(version):  # the example's own range is exact: outside it, no break
            _assert_clean(rule, obs, f"breaking example {i} outside its range torch {ex.torch}")
            continue
        expected = _expect_lines(ex.code, rule.id)
        if rule.kind.value == "recompile":
            assert raw.get("examples", {}).get("expect_recompile"), "set expect_recompile = true"
            assert obs.recompiles, f"{rule.id}: no recompile observed\n{obs.summary()}"
            for line in expected:
                assert line in obs.recompile_lines, (
                    f"{rule.id}: no recompile guard at line {line}\n{obs.summary()}"
                )
            continue
        for line in expected:
            hits = [gb for ln, gb in obs.breaks if ln == line]
            assert hits, f"{rule.id}: no graph break at line {line}\n{obs.summary()}"
            assert set(hits) & set(gb_ids), (
                f"{rule.id}: line {line} broke with {hits}, not {gb_ids}\n{obs.summary()}"
            )
        if rule.kind.value == "frame-fallback":
            assert obs.fallback, f"{rule.id}: the frame did not fall back\n{obs.summary()}"


@pytest.mark.dynamic
@pytest.mark.parametrize("rule", [r for r in WITH_EXAMPLES if r.fixed], ids=lambda r: r.id)
def test_fixed_example_compiles_without_breaks(rule: Rule, tmp_path: Path):
    device = _dynamic_guard(rule)
    for i, ex in enumerate(rule.fixed):
        examples = _raw(rule).get("examples", {})
        obs = _observe(ex.code, tmp_path / f"{rule.id}_fixed_{i}.py", device,
                       examples.get("backend", "eager"), examples.get("dynamic"))
        _assert_clean(rule, obs, "fixed")
