"""Compile regions reached in less visible ways, and what Dynamo does with a break there.

`torch.cond` branches and `while_loop` bodies (traced whole: a break there is an error), project
`__setattr__` run by `obj.attr = x`, `torch.compiler.disable` applied to a function passed in,
and torch functions made opaque with `torch._dynamo.disallow_in_graph`. Each test writes a user's
project into a fresh directory and runs the CLI on it; the dynamic tests run real Dynamo (torch
2.13, backend "eager") on the same files.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import cli_findings, requires_torch, write_files

COND = {
    "pkg/__init__.py": "",
    "pkg/branches.py": """\
        def scaled(x):
            return x.sin() * x.sum().item()


        def shifted(x):
            return log_shape(x).cos()


        def log_shape(x):
            print("shape", x.shape)
            return x


        def smooth(x):
            return x.tanh()
    """,
    "pkg/model.py": """\
        import torch
        from torch import nn

        from .branches import scaled, shifted, smooth


        class Gate(nn.Module):
            def forward(self, x):
                return torch.cond(x.sum() > 0, scaled, shifted, (x,))


        class Smooth(nn.Module):
            def forward(self, x):
                return torch.cond(x.sum() > 0, smooth, smooth, (x,)) * 2


        def breakscan_examples():
            yield Gate(), (torch.ones(3),)
            yield Smooth(), (torch.ones(3),)
    """,
}


def test_cond_branches_are_traced_and_a_break_there_is_an_error(tmp_path: Path) -> None:
    write_files(tmp_path, COND)
    findings = cli_findings(tmp_path, "pkg", "--no-dynamic", "--regions", "explicit")
    got = {(f["rule_id"], Path(f["path"]).name, f["line"]): f for f in findings}
    assert set(got) == {("BRK102", "branches.py", 2), ("BRK201", "branches.py", 10)}
    item, printed = got[("BRK102", "branches.py", 2)], got[("BRK201", "branches.py", 10)]
    assert item["chain"] == ["Gate.forward", "scaled"]
    assert printed["chain"] == ["Gate.forward", "shifted", "log_shape"]  # callees of a branch too
    for finding in (item, printed):
        assert finding["severity"] == "error"
        assert "UncapturedHigherOrderOpError" in finding["message"]
        assert finding["extra"]["higher_order_op"] == "torch.cond"


@pytest.mark.dynamic
@requires_torch
def test_dynamo_raises_on_a_break_in_a_cond_branch(tmp_path: Path) -> None:
    write_files(tmp_path, COND)
    findings = cli_findings(tmp_path, "pkg", "--regions", "explicit", "--backend", "eager")
    statuses = {(f["rule_id"], Path(f["path"]).name, f["line"], f["status"]) for f in findings}
    assert ("BRK102", "branches.py", 2, "confirmed") in statuses
    # Dynamo stops at the first branch's error: the second branch's print is never traced.
    assert ("BRK201", "branches.py", 10, "predicted") in statuses
    raised = [f for f in findings if f["rule_id"] == "BRK902"]
    assert raised and "UncapturedHigherOrderOpError" in raised[0]["message"]
    assert not [f for f in findings if f["status"] in ("refuted", "observed") and f["rule_id"] != "BRK902"]


SETATTR = {
    "pkg/__init__.py": "",
    "pkg/state.py": """\
        class Tracked:
            def __setattr__(self, name, value):
                print("set", name)
                object.__setattr__(self, name, value)


        class Quiet:
            def __setattr__(self, name, value):
                object.__setattr__(self, name, value)


        STATE = Tracked()
    """,
    "pkg/model.py": """\
        import torch
        from torch import nn

        from .state import STATE, Quiet, Tracked


        class Recorder(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(3, 3)

            def __setattr__(self, name, value):
                print("module set", name)
                super().__setattr__(name, value)

            def forward(self, x):
                self.last = self.proj(x)
                return self.last + 1


        class Holder(nn.Module):
            def __init__(self):
                super().__init__()
                self.quiet = Quiet()
                self._scale = 1.0

            @property
            def scale(self):
                return self._scale

            @scale.setter
            def scale(self, value):
                print("scale set to", value)
                self._scale = value

            def forward(self, x):
                self.quiet.value = x * 2
                STATE.value = x
                self.scale = 3.0
                return x + 1


        def build(x):
            local = Tracked()
            local.seen = x.shape
            return x * 2


        def breakscan_examples():
            yield Recorder(), (torch.ones(3),)
            yield Holder(), (torch.ones(3),)
            yield build, (torch.ones(3),)
    """,
}
SETATTR_BREAKS = {
    ("BRK201", "state.py", 3): ("Holder.forward", "Tracked.__setattr__"),  # STATE.value = x (imported global)
    ("BRK201", "model.py", 13): ("Recorder.forward", "Recorder.__setattr__"),  # self.last = ...
    ("BRK201", "model.py", 33): ("Holder.forward", "Holder.scale"),  # self.scale = 3.0: the setter
}


def test_attribute_stores_run_project_setattr_and_property_setters(tmp_path: Path) -> None:
    write_files(tmp_path, SETATTR)
    findings = cli_findings(tmp_path, "pkg", "--no-dynamic", "--regions", "explicit")
    got = {(f["rule_id"], Path(f["path"]).name, f["line"]): tuple(f["chain"]) for f in findings}
    assert got == SETATTR_BREAKS  # `local.seen = ...` in build runs Tracked.__setattr__ too (same line)


@pytest.mark.dynamic
@requires_torch
def test_dynamo_traces_setattr_and_setters_run_by_attribute_stores(tmp_path: Path) -> None:
    write_files(tmp_path, SETATTR)
    findings = cli_findings(tmp_path, "pkg", "--regions", "explicit", "--backend", "eager")
    breaks = {(f["rule_id"], Path(f["path"]).name, f["line"], f["status"]) for f in findings
              if f["kind"] == "graph-break"}
    assert breaks == {(*key, "confirmed") for key in SETATTR_BREAKS}


DISABLE_PASSED_IN = {
    "pkg/__init__.py": "",
    "pkg/runner.py": """\
        import torch


        def run(fn, x):
            return torch.compiler.disable(fn)(x) + 1


        def run_shallow(fn, x):
            return torch._dynamo.disable(recursive=False)(fn)(x) + 1


        def wrap(fn):
            return torch.compiler.disable(recursive=False)(fn)
    """,
    "pkg/model.py": """\
        import torch

        from .runner import run, run_shallow, wrap


        def helper(x):
            return x * x.max().item()


        @torch.compile(backend="eager")
        def step(x):
            eager = wrap(helper)
            return run(helper, x) + run_shallow(helper, x) + eager(x) + local(helper, x)


        def local(fn, x):
            skipped = torch.compiler.disable(fn)
            y = x * 2
            return skipped(y)


        def breakscan_examples():
            yield step, (torch.ones(3),)
    """,
}


def test_disable_applied_to_a_function_passed_in_breaks_at_the_call(tmp_path: Path) -> None:
    write_files(tmp_path, DISABLE_PASSED_IN)
    findings = cli_findings(tmp_path, "pkg", "--no-dynamic", "--regions", "explicit")
    assert {(f["rule_id"], Path(f["path"]).name, f["line"]) for f in findings} == {
        ("BRK208", "runner.py", 5), ("BRK208", "runner.py", 9),  # `helper` itself is never traced
        ("BRK208", "runner.py", 13),  # making the wrapper breaks too: Dynamo cannot trace `disable`
        ("BRK208", "model.py", 17), ("BRK208", "model.py", 19)}  # made, then called through a local


@pytest.mark.dynamic
@requires_torch
def test_dynamo_breaks_where_disable_wraps_a_function_passed_in(tmp_path: Path) -> None:
    write_files(tmp_path, DISABLE_PASSED_IN)
    findings = cli_findings(tmp_path, "pkg", "--regions", "explicit", "--backend", "eager")
    statuses = {(f["rule_id"], Path(f["path"]).name, f["line"], f["status"]) for f in findings}
    assert {("BRK208", "runner.py", line, "confirmed") for line in (5, 9, 13)} <= statuses
    assert {("BRK208", "model.py", line, "confirmed") for line in (17, 19)} <= statuses
    assert not [f for f in findings if Path(f["path"]).name == "model.py" and f["line"] == 7]  # helper's .item()


DISALLOWED = {
    "pkg/__init__.py": "",
    "pkg/setup.py": """\
        import torch

        torch._dynamo.disallow_in_graph([torch.special.ndtr, torch.special.erfcx])
    """,
    "pkg/model.py": """\
        import torch
        from torch import nn
        from torch.special import ndtr

        from . import setup


        class Head(nn.Module):
            def forward(self, x):
                y = ndtr(x * 2)
                z = torch.special.erfcx(y)
                return torch.special.ndtri(z.clamp(0.1, 0.9))


        def breakscan_examples():
            yield Head(), (torch.ones(3),)
    """,
}


def test_ops_disallowed_in_another_file_break_where_they_are_called(tmp_path: Path) -> None:
    write_files(tmp_path, DISALLOWED)
    findings = cli_findings(tmp_path, "pkg", "--no-dynamic", "--regions", "explicit")
    assert {(f["rule_id"], Path(f["path"]).name, f["line"]) for f in findings} == {
        ("BRK250", "model.py", 10), ("BRK250", "model.py", 11)}  # ndtri is not disallowed


@pytest.mark.dynamic
@requires_torch
def test_dynamo_breaks_on_ops_disallowed_in_graph(tmp_path: Path) -> None:
    write_files(tmp_path, DISALLOWED)
    findings = cli_findings(tmp_path, "pkg", "--regions", "explicit", "--backend", "eager")
    assert {(f["rule_id"], Path(f["path"]).name, f["line"], f["status"]) for f in findings} == {
        ("BRK250", "model.py", 10, "confirmed"), ("BRK250", "model.py", 11, "confirmed")}


NESTED_AND_KEYWORD = {
    "pkg/__init__.py": "",
    "pkg/ops.py": """\
        import torch


        def shift(x):
            print("shift", x.shape)
            return x + 1


        def apply(x, fn=None):
            return fn(x) if fn is not None else x


        def branchy(x):
            def true_fn(y):
                return y.sin() * y.max().item()

            def false_fn(y):
                return y.cos()

            return torch.cond(x.sum() > 0, true_fn, false_fn, (x,))
    """,
    "pkg/train.py": """\
        import torch

        from .ops import apply, branchy, shift


        def step(x):
            return apply(x, fn=shift) * 2


        compiled = {"step": torch.compile(step, mode="reduce-overhead", backend="eager")}
        cond_fast = torch.compile(branchy, backend="eager")


        def breakscan_examples():
            yield compiled["step"], (torch.ones(3),)
            yield cond_fast, (torch.ones(3),)
    """,
}


def test_function_passed_by_keyword_and_nested_cond_branches(tmp_path: Path) -> None:
    write_files(tmp_path, NESTED_AND_KEYWORD)
    findings = cli_findings(tmp_path, "pkg", "--no-dynamic", "--regions", "explicit")
    got = {(f["rule_id"], f["line"]): f for f in findings}
    assert set(got) == {("BRK201", 5), ("BRK102", 15)}
    assert got[("BRK201", 5)]["chain"] == ["step", "apply", "shift"]  # apply(x, fn=shift)
    nested = got[("BRK102", 15)]  # in `true_fn`, a def nested in branchy and passed to torch.cond
    assert nested["severity"] == "error" and nested["extra"]["higher_order_op"] == "torch.cond"
    assert got[("BRK201", 5)]["severity"] == "warning"


@pytest.mark.dynamic
@requires_torch
def test_dynamo_confirms_keyword_passed_functions_and_nested_cond_branches(tmp_path: Path) -> None:
    write_files(tmp_path, NESTED_AND_KEYWORD)
    findings = cli_findings(tmp_path, "pkg", "--regions", "explicit", "--backend", "eager")
    statuses = {(f["rule_id"], Path(f["path"]).name, f["line"], f["status"]) for f in findings}
    assert {("BRK201", "ops.py", 5, "confirmed"), ("BRK102", "ops.py", 15, "confirmed")} <= statuses
    assert {f["rule_id"] for f in findings if f["status"] == "observed"} <= {"BRK902"}  # cond raised


WHILE_LOOP = """\
    import torch


    def keep_going(i, x):
        return i < 3


    def body(i, x):
        print("step", i)
        return i + 1, x * 2


    @torch.compile(backend="eager")
    def repeat(x):
        return torch.while_loop(keep_going, body, (torch.tensor(0), x))


    def breakscan_examples():
        yield repeat, (torch.ones(3),)
"""


@pytest.mark.dynamic
@requires_torch
def test_a_break_in_a_while_loop_body_is_an_error(tmp_path: Path) -> None:
    write_files(tmp_path, {"loop.py": WHILE_LOOP})
    static = cli_findings(tmp_path, "loop.py", "--no-dynamic")
    assert [(f["rule_id"], f["line"], f["severity"], f["extra"].get("higher_order_op")) for f in static] == [
        ("BRK201", 9, "error", "torch.while_loop")]
    dynamic = cli_findings(tmp_path, "loop.py", "--backend", "eager")
    raised = [f for f in dynamic if f["rule_id"] == "BRK902"]
    assert raised and "UncapturedHigherOrderOpError" in raised[0]["message"]
