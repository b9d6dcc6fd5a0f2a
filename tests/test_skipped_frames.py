"""BRK406: comprehensions in a function Dynamo skips after a graph break under a try block.

Static part: the cross-file pass (breakscan.static.frames) finds the break below the try body
through methods, submodules and a decorator's wrapper, and flags only the comprehensions Dynamo
runs as frames of their own. Merge part: the finding is conditional on the breaks it names.
Dynamic part: real Dynamo confirms the decorator-wrapper form (transformers' capture_outputs).
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from breakscan.catalog import load_catalog
from breakscan.findings import Finding, Kind, Status
from breakscan.merge import merge
from breakscan.static.engine import scan_files
from tests.conftest import break_statuses, cli_findings, located, requires_torch, write_files

CATALOG = load_catalog()
RULE = CATALOG["BRK406"]
needs_comprehension_frames = pytest.mark.skipif(
    sys.version_info >= (3, 12), reason="Python 3.12 inlines comprehensions (PEP 709)")

WRAPPER = '''
import functools
import torch
from torch import nn

REGISTRY = {"hidden": 1, "attn": 2}


def capture(func):
    @functools.wraps(func)
    def wrapper(self, *args, **kwargs):
        flags = {f"out_{k}": kwargs.get(k, self.training) for k in REGISTRY}  # line 12
        names = [k for k in REGISTRY]
        try:
            out = func(self, *args, **kwargs)
        finally:
            flags.clear()
        extra = [self.training for _ in range(2)]
        tail = [self for k in REGISTRY]  # line 19
        return out
    return wrapper


class Breaks(nn.Module):
    @capture
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.sum() > 0:  # line 27
            return x + 1
        return x - 1


class Clean(nn.Module):
    @capture
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + 1
'''


def _scan(tmp_path: Path, code: str, name: str = "mod.py") -> list[Finding]:
    path = tmp_path / name
    path.write_text(textwrap.dedent(code), encoding="utf-8")
    return scan_files([path], [r for r in CATALOG.values() if r.applies_to_python()]).findings


def _lines(findings: list[Finding], rule_id: str = "BRK406") -> list[int]:
    return sorted(f.line for f in findings if f.rule_id == rule_id)


@needs_comprehension_frames
def test_decorator_wrapper_around_a_breaking_forward(tmp_path):
    findings = _scan(tmp_path, WRAPPER)
    assert _lines(findings, "BRK101") == [27]
    # `names` names neither self nor torch (not traced as a frame); `extra` iterates a range.
    assert _lines(findings) == [12, 19]
    first = next(f for f in findings if f.rule_id == "BRK406")
    assert first.extra["requires"] == [f"{tmp_path / 'mod.py'}:27"]
    assert first.extra["try_line"] == 14
    assert "line 14" in first.message and "mod.py:27" in first.message
    assert first.code.startswith('{f"out_{k}"')


@needs_comprehension_frames
def test_no_break_below_the_try_means_no_finding(tmp_path):
    code = WRAPPER.replace("if x.sum() > 0:  # line 27", "if x.dim() > 0:")
    assert _lines(_scan(tmp_path, code)) == []


@needs_comprehension_frames
def test_operations_before_the_try_leave_only_later_comprehensions(tmp_path):
    # Arithmetic before the block gives Dynamo a point to resume from: the comprehension
    # before it is compiled in that graph, the one after still runs eagerly.
    code = WRAPPER.replace("        names = [k for k in REGISTRY]\n",
                           "        names = [k for k in REGISTRY]\n        scale = len(names) * 2\n")
    assert _lines(_scan(tmp_path, code)) == [20]


@needs_comprehension_frames
def test_break_in_a_method_and_a_submodule_called_in_the_try(tmp_path):
    code = '''
    import torch
    from torch import nn


    class Inner(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x * int(x.max())


    class Outer(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = Inner()
            self.keys = ["a", "b"]

        def forward(self, x):
            try:
                y = self.inner(x)
            except RuntimeError:
                y = x
            gens = tuple(self.training for _ in self.keys)
            kept = {k: self.training for k in self.keys}
            return y

        def helper(self, x):
            try:
                return self.step(x)
            finally:
                pass
            return [torch.relu for k in self.keys]

        def step(self, x: torch.Tensor) -> torch.Tensor:
            return x.nonzero()
    '''
    findings = _scan(tmp_path, code)
    # Line 22's generator expression is a generator frame, which Dynamo skips; `helper` is not
    # in a compile region.
    assert _lines(findings) == [23]


def test_rule_is_inactive_from_python_3_12():
    assert RULE.python_versions == "<3.12"
    assert RULE.applies_to_python((3, 11)) and RULE.applies_to_python((3, 10))
    assert not RULE.applies_to_python((3, 12)) and not RULE.applies_to_python((3, 13))


def _conditional(path: str, requires: list[str]) -> Finding:
    return Finding(rule_id="BRK406", kind=Kind.GRAPH_BREAK, path=path, line=12, column=1,
                   message="m", status=Status.PREDICTED, gb_ids=("GB4347",),
                   extra={"requires": requires})


def test_merge_judges_a_conditional_finding_only_where_its_cause_ran(tmp_path):
    path = str(tmp_path / "wrap.py")
    cause = f"{tmp_path / 'model_a.py'}:27"
    pred = _conditional(path, [cause])
    # Another model ran the shared wrapper line without breaking; model_a never ran: not judged.
    [kept] = merge([pred], [], {path: {12}})
    assert kept.status is Status.PREDICTED
    # model_a ran (its line 27 traced) and line 12 did not break: refuted.
    [refuted] = merge([pred], [], {path: {12}, str(tmp_path / "model_a.py"): {27}})
    assert refuted.status is Status.REFUTED
    # An unconditional finding on a traced line is refuted as before.
    plain = pred.replace(extra={})
    assert merge([plain], [], {path: {12}})[0].status is Status.REFUTED


@pytest.mark.dynamic
@needs_comprehension_frames
def test_dynamo_confirms_the_wrapper_comprehensions_and_not_the_clean_model(tmp_path):
    pytest.importorskip("torch")
    from breakscan.dynamic.runner import run_dynamic

    code = textwrap.dedent(WRAPPER) + textwrap.dedent('''

    def breakscan_examples():
        yield Breaks(), (torch.ones(3),)
        yield Clean(), (torch.ones(3),)
    ''')
    static = _scan(tmp_path, code)
    path = tmp_path / "mod.py"
    dynamic = run_dynamic(path, project_root=tmp_path, timeout=300)
    merged = merge(static, dynamic.findings, dynamic.traced_lines)
    statuses = {f.line: f.status for f in merged if f.rule_id == "BRK406"}
    assert statuses == {12: Status.CONFIRMED, 19: Status.CONFIRMED}
    observed = {f.line for f in merged if f.status is Status.OBSERVED and f.kind is Kind.GRAPH_BREAK}
    assert not observed & {13, 18}, "neither the untraced nor the range comprehension breaks"


@needs_comprehension_frames
def test_break_in_a_module_function_called_in_the_try(tmp_path):
    code = '''
    import torch
    from torch import nn


    def count(x: torch.Tensor) -> int:
        return int(x.sum())


    class Net(nn.Module):
        def forward(self, x: torch.Tensor, names: list) -> torch.Tensor:
            try:
                n = count(x)
            finally:
                pass
            return [self.training for k in names]
    '''
    findings = _scan(tmp_path, code)
    assert _lines(findings, "BRK104") == [7]
    [finding] = [f for f in findings if f.rule_id == "BRK406"]
    assert finding.line == 16 and finding.extra["requires"] == [f"{tmp_path / 'mod.py'}:7"]


# --- Frames skipped after a break under a try, in a loop, or under a project context manager ---
# A user's package with relative imports and unannotated helpers. Measured on torch 2.13 /
# Python 3.11: Dynamo runs the rest of each skipped `forward` eagerly, so the prints after the
# blocks do not break; the helpers called there are frames of their own and still break; the
# comprehension (3.11), the generator expressions and the `contextmanager` generator started by
# the eager code fall back; torch's own `no_grad` resumes, so the print after it breaks.
PACKAGE = {
    "net/__init__.py": "",
    "net/ops.py": """\
        import torch


        def route(x):
            return x * int(x.max())


        def gate(x):
            if x.sum() > 0:
                return x + 1
            return x - 1
    """,
    "net/blocks.py": """\
        import contextlib

        import torch
        from torch import nn

        from .ops import gate, route


        class Counter:
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return False


        @contextlib.contextmanager
        def tagged(name):
            yield name


        class TryBlock(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(4, 4)
                self.names = ["a", "b"]

            def forward(self, x):
                try:
                    y = route(x)
                finally:
                    pass
                z = gate(x)
                outs = [self.proj(y) for _ in self.names]
                total = sum(o.sum() for o in outs)
                print("after the try")
                return z + total


        class LoopBlock(nn.Module):
            def forward(self, x):
                y = x * 2
                for _ in range(2):
                    y = route(y)
                wide = any(n > 3 for n in y.shape)
                print("after the loop")
                return gate(x) + wide


        class WithBlock(nn.Module):
            def forward(self, x):
                y = x * 2
                with Counter():
                    y = y * int(y.max())
                print("after the with")
                return gate(x) + y


        class TaggedBlock(nn.Module):
            def forward(self, x):
                y = x * 2
                with tagged("t"):
                    y = route(y)
                print("after the tagged block")
                return y


        class GradBlock(nn.Module):
            def forward(self, x):
                y = x * 2
                with torch.no_grad():
                    y = y * int(y.max())
                print("resumed after no_grad")
                return y
    """,
    "net/run.py": """\
        import torch

        from .blocks import GradBlock, LoopBlock, TaggedBlock, TryBlock, WithBlock


        def breakscan_examples():
            x = torch.randn(2, 4)
            yield TryBlock(), (x,)
            yield LoopBlock(), (x,)
            yield WithBlock(), (x,)
            yield TaggedBlock(), (x,)
            yield GradBlock(), (x,)
    """,
}
PACKAGE_BREAKS = {
    ("BRK104", "ops.py", 5),  # route: under the try, in the loop, under tagged(): each skips its caller
    ("BRK101", "ops.py", 9),  # gate, called by the eager code: a frame of its own, traced from its start
    ("BRK406", "blocks.py", 34),  # [self.proj(y) for _ in self.names] after the try (Python <= 3.11)
    ("BRK407", "blocks.py", 35),  # sum(o.sum() for o in outs): a generator frame
    ("BRK407", "blocks.py", 45),  # any(n > 3 for n in y.shape) after the loop
    ("BRK407", "blocks.py", 18),  # `def tagged`: the contextmanager's generator, started eagerly
    ("BRK104", "blocks.py", 54),  # under Counter(): the whole forward is skipped
    ("BRK104", "blocks.py", 72),  # under no_grad: Dynamo resumes after it...
    ("BRK201", "blocks.py", 73),  # ...so this print breaks; the prints after the other blocks do not
}
if sys.version_info >= (3, 12):  # comprehensions are inlined (PEP 709)
    PACKAGE_BREAKS = PACKAGE_BREAKS - {("BRK406", "blocks.py", 34)}


def test_prints_after_a_skipping_block_are_not_predicted(tmp_path):
    write_files(tmp_path, PACKAGE)
    assert located(cli_findings(tmp_path, "net", "--no-dynamic", "--no-cache")) == PACKAGE_BREAKS


@pytest.mark.dynamic
@requires_torch
def test_dynamo_breaks_exactly_where_the_skipped_frames_predict(tmp_path):
    write_files(tmp_path, PACKAGE)
    findings = cli_findings(tmp_path, "net", "--no-cache", "--backend", "eager")
    assert break_statuses(findings) == {(*p, "confirmed") for p in PACKAGE_BREAKS}
    tagged = next(f for f in findings if f["rule_id"] == "BRK407" and f["line"] == 18)
    assert tagged["extra"]["skip_block"] == "with"
    assert tagged["chain"] == ["TaggedBlock.forward", "tagged"]


# A training script: an inlined callee's loop break skips only the callee (its caller resumes
# after the call), a break in a `for` loop's iterable resumes, a break in a `while` body through a
# call skips the rest of the (resumed) frame, where a dict comprehension then breaks.
SCRIPT = """\
    import torch
    from torch import nn


    def score(x):
        return x * int(x.max())


    def clip(x):
        if x.sum() > 0:
            return x.clamp(max=1.0)
        return x


    def looper(x):
        y = x * 2
        for _ in range(2):
            if y.sum() > 0:
                y = y + 1
        print("looper done")
        return y


    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.keys = ["a", "b"]
            self.lin = nn.Linear(4, 4)

        def forward(self, x):
            y = self.lin(looper(x))
            print("head resumed")
            for t in [y, score(y)]:
                y = y + t
            print("after the header")
            i = 0
            while i < 2:
                z = score(y)
                i += 1
            feats = {k: self.lin(y) for k in self.keys}
            print("done")
            return clip(x) + feats["a"] + z


    def breakscan_examples():
        yield Head(), (torch.randn(2, 4),)
"""
SCRIPT_BREAKS = {
    ("BRK104", "train.py", 6), ("BRK101", "train.py", 10), ("BRK101", "train.py", 18),
    ("BRK201", "train.py", 32), ("BRK201", "train.py", 35), ("BRK406", "train.py", 40),
}
if sys.version_info >= (3, 12):
    SCRIPT_BREAKS = SCRIPT_BREAKS - {("BRK406", "train.py", 40)}


def test_loop_skips_follow_the_frame_that_holds_the_loop(tmp_path):
    write_files(tmp_path, {"train.py": SCRIPT})
    findings = cli_findings(tmp_path, "train.py", "--no-dynamic", "--no-cache")
    assert located(findings) == SCRIPT_BREAKS  # not the prints on lines 20 and 41
    if sys.version_info < (3, 12):
        feats = next(f for f in findings if f["rule_id"] == "BRK406")
        assert feats["extra"]["skip_block"] == "loop" and feats["extra"]["try_line"] == 37
        assert "the loop at line 37" in feats["message"] or "line 37" in feats["message"]


@pytest.mark.dynamic
@requires_torch
def test_dynamo_confirms_the_loop_skips(tmp_path):
    write_files(tmp_path, {"train.py": SCRIPT})
    findings = cli_findings(tmp_path, "train.py", "--no-cache", "--backend", "eager")
    assert break_statuses(findings) == {(*p, "confirmed") for p in SCRIPT_BREAKS}


# transformers' encoder loop: a break in a layer (inlined from `layer(hidden)`, an element of a
# ModuleList) skips the encoder's whole `forward`; the layer still breaks in its own frame, the
# print after the loop does not, and the classic `return tuple(v for v in [...] if v is not None)`
# falls back as a generator frame.
ENCODER = """\
    import torch
    from torch import nn


    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, hidden):
            if hidden.sum() > 0:
                hidden = hidden * 2
            return self.lin(hidden)


    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([Layer() for _ in range(2)])

        def forward(self, hidden, output_hidden_states=True):
            all_hidden = ()
            for i, layer in enumerate(self.layers):
                all_hidden = all_hidden + (hidden,)
                hidden = layer(hidden)
            print("encoded")
            return tuple(v for v in [hidden, all_hidden] if v is not None)


    def breakscan_examples():
        yield Encoder(), (torch.randn(2, 4),)
"""
ENCODER_BREAKS = {("BRK101", "encoder.py", 11), ("BRK407", "encoder.py", 27)}


def test_a_break_in_a_layer_of_a_module_list_skips_the_encoder_loop(tmp_path):
    write_files(tmp_path, {"encoder.py": ENCODER})
    findings = cli_findings(tmp_path, "encoder.py", "--no-dynamic", "--no-cache")
    assert located(findings) == ENCODER_BREAKS
    gen = next(f for f in findings if f["rule_id"] == "BRK407")
    assert gen["extra"]["requires"] == [f"{tmp_path / 'encoder.py'}:11"]


@pytest.mark.dynamic
@requires_torch
def test_dynamo_confirms_the_encoder_loop_skip(tmp_path):
    write_files(tmp_path, {"encoder.py": ENCODER})
    findings = cli_findings(tmp_path, "encoder.py", "--no-cache", "--backend", "eager")
    assert break_statuses(findings) == {(*p, "confirmed") for p in ENCODER_BREAKS}


# Generators: `chunks` breaks while the loop in `accumulate` iterates it (its body runs at each
# step of the loop, so the break is in the loop and `accumulate` is skipped, though the call is in
# the loop's header). The eager rest then starts two generator frames that Dynamo refuses (GB0003,
# reported at their `def`): `halves`, iterated, and `tagged`, a `contextmanager` entered. `chunks`,
# whose own loop broke while Dynamo inlined it, is not reported again (measured on 2.13).
GENERATORS = """\
    import contextlib

    import torch


    def chunks(x):
        for i in range(2):
            yield x * int(x.max())


    def halves(x):
        for i in range(2):
            yield x / 2


    @contextlib.contextmanager
    def tagged():
        yield


    def gate(x):
        if x.sum() > 0:
            return x + 1
        return x - 1


    def accumulate(x: torch.Tensor):
        x = x * 2
        total = torch.zeros_like(x)
        for v in chunks(x):
            total = total + v
        print("accumulated")
        for h in halves(total):
            total = total + h
        with tagged():
            total = total + 1
        return gate(total)


    def breakscan_examples():
        yield accumulate, (torch.randn(2, 4),)
"""
GENERATOR_BREAKS = {("BRK104", "gens.py", 8), ("BRK407", "gens.py", 11), ("BRK407", "gens.py", 17),
                    ("BRK101", "gens.py", 22)}


def test_generator_frames_started_by_a_skipped_function(tmp_path):
    write_files(tmp_path, {"gens.py": GENERATORS})
    findings = cli_findings(tmp_path, "gens.py", "--no-dynamic", "--no-cache")
    assert located(findings) == GENERATOR_BREAKS  # not the print on line 32
    halves = next(f for f in findings if f["line"] == 11)
    assert halves["chain"] == ["accumulate", "halves"] and halves["code"] == "def halves(x):"


@pytest.mark.dynamic
@requires_torch
def test_dynamo_confirms_the_generator_frames(tmp_path):
    write_files(tmp_path, {"gens.py": GENERATORS})
    findings = cli_findings(tmp_path, "gens.py", "--no-cache", "--backend", "eager")
    assert break_statuses(findings) == {(*p, "confirmed") for p in GENERATOR_BREAKS}


@needs_comprehension_frames
def test_a_decorator_factory_wrapper_is_flagged_once(tmp_path):
    # transformers' `capture_outputs(func=None, *, tie=True)`: the wrapper sits two defs deep, and
    # each def is its own frame (the comprehension was flagged once per enclosing def).
    code = """
    import functools
    import torch
    from torch import nn

    KEYS = ["hidden", "attn"]


    def capture(func=None, *, tie=True):
        def wrapped_fn(func):
            @functools.wraps(func)
            def wrapper(self, *args, **kwargs):
                flags = {k: kwargs.get(k, self.training) for k in KEYS}  # line 13
                try:
                    out = func(self, *args, **kwargs)
                finally:
                    flags.clear()
                return out
            return wrapper
        return wrapped_fn(func) if func is not None else wrapped_fn


    class Breaks(nn.Module):
        @capture
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x * int(x.max())  # line 26
    """
    findings = _scan(tmp_path, code)
    assert _lines(findings, "BRK104") == [26]
    assert _lines(findings) == [13]


def test_under_fullgraph_nothing_runs_eagerly_to_start_frames(tmp_path):
    # fullgraph=True raises at the first graph break: no eager rest, no generator frame.
    code = """
    import torch
    from torch import nn


    class Tagger(nn.Module):
        def __init__(self):
            super().__init__()
            self.names = ["a", "b"]

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            for name in self.names:
                if x.sum() > 0:
                    x = x * 2
            return x + any(n == "a" for n in self.names)


    fast = torch.compile(Tagger(){options})
    """
    write_files(tmp_path, {"tag.py": code.format(options="")})
    assert located(cli_findings(tmp_path, "tag.py", "--no-dynamic", "--no-cache", "--regions", "explicit")) == {
        ("BRK101", "tag.py", 13), ("BRK407", "tag.py", 15)}
    write_files(tmp_path, {"tag.py": code.format(options=", fullgraph=True")})
    assert located(cli_findings(tmp_path, "tag.py", "--no-dynamic", "--no-cache", "--regions", "explicit")) == {
        ("BRK101", "tag.py", 13)}


# A break behind a test on its own line (x_transformers' layer dropout: `random()` runs only in
# train mode with a positive rate) is a warning of its own, but no cause of a skipped frame: in
# eval mode Dynamo neither breaks there nor skips the loop, and the generator expression after
# the loop is traced.
GUARDED = """\
    from random import random

    import torch
    from torch import nn


    class Stack(nn.Module):
        def __init__(self, layer_dropout=0.0):
            super().__init__()
            self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(2)])
            self.layer_dropout = layer_dropout

        def forward(self, x):
            for layer in self.layers:
                if self.training and self.layer_dropout > 0 and random() < self.layer_dropout:
                    continue
                x = layer(x)
            return tuple(v for v in [x, x * 2] if v is not None)


    def breakscan_examples():
        yield Stack().eval(), (torch.randn(2, 4),)
"""


def test_a_guarded_break_skips_no_frame(tmp_path):
    write_files(tmp_path, {"stack.py": GUARDED})
    findings = cli_findings(tmp_path, "stack.py", "--no-dynamic", "--no-cache")
    # the random() warning and the train/eval recompile note of `self.training`; no BRK407 at line 18
    assert located(findings) == {("BRK205", "stack.py", 15), ("BRK501", "stack.py", 15)}


@pytest.mark.dynamic
@requires_torch
def test_dynamo_does_not_skip_the_frame_of_a_guarded_break(tmp_path):
    write_files(tmp_path, {"stack.py": GUARDED})
    findings = cli_findings(tmp_path, "stack.py", "--no-cache", "--backend", "eager")
    # the guarded prediction is not refuted (its call never ran) and nothing else breaks
    assert break_statuses(findings) == {("BRK205", "stack.py", 15, "predicted")}
