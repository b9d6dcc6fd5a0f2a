"""Compile regions in the forms real projects write them, and the markers that end a region.

Each test writes a user's project into a fresh directory and runs the CLI on it as a user does.
What each form means to Dynamo was measured on torch 2.13 (backend "eager"): the dynamic tests
check that real Dynamo confirms every prediction the static pass makes for these forms.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import cli_findings, located, requires_torch, write_files


COMPILE_FORMS = {
    "pkg/__init__.py": "",
    "pkg/ops.py": """
        import torch


        def scale(x):
            return x * x.sum().item()


        def my_backend(gm, example_inputs):
            print("compiling", len(example_inputs))
            return gm.forward


        def normalise(x):
            return x / x.norm().item()


        def unused(x):
            return x * x.max().item()


        step = torch.compile(backend="eager", mode="default")(scale)
        norm_fast = torch._dynamo.optimize(my_backend)(normalise)
    """,
    "pkg/model.py": """
        import torch
        from torch import nn

        from .ops import step


        class Encoder(nn.Module):
            def forward(self, x):
                return x * x.mean().item()


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.encoder = Encoder()
                self.head = torch.compile(self.head, fullgraph=False)

            def head(self, x):
                return x * x.min().item()

            def forward(self, x):
                return step(self.encoder(x))


        class Plain(nn.Module):
            def forward(self, x):
                return x * x.std().item()


        def build():
            net = Net().to("cpu").eval()
            net.compile(mode="max-autotune")
            return net
    """,
}


def test_compile_applied_with_options_stored_and_as_method(tmp_path: Path) -> None:
    write_files(tmp_path, COMPILE_FORMS)
    got = located(cli_findings(tmp_path, "pkg", "--no-dynamic", "--regions", "explicit"))
    assert got == {
        ("BRK102", "ops.py", 6),  # torch.compile(backend=..., mode=...)(scale)
        ("BRK102", "ops.py", 15),  # torch._dynamo.optimize(backend)(normalise); the backend is no region
        ("BRK102", "model.py", 10),  # Net().to("cpu").eval() then net.compile(): its submodule
        ("BRK102", "model.py", 20),  # self.head = torch.compile(self.head)
    }


def test_compiled_callable_stored_and_applied_later_across_files(tmp_path: Path) -> None:
    write_files(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/ops.py": """
            import torch


            def scale(x):
                return x * x.sum().item()


            fast_scale = torch.compile(scale, dynamic=False)
        """,
        "pkg/train.py": """
            import torch

            from .ops import fast_scale


            def breakscan_examples():
                yield fast_scale, (torch.ones(3),)
        """,
    })
    [finding] = cli_findings(tmp_path, "pkg", "--no-dynamic", "--regions", "explicit")
    assert (finding["rule_id"], finding["line"], finding["chain"]) == ("BRK102", 6, ["scale"])


MARKERS = """
    import torch
    from torch import nn


    def leaf(x):
        return x * x.sum().item()


    def stats(x):
        print(x)
        return leaf(x)


    @torch.compiler.disable(recursive=False)
    def shallow(x):
        print(x)
        return leaf(x) + 1


    stats = torch.compiler.disable(stats)


    @torch._dynamo.nonstrict_trace
    def loose(x):
        print(x)
        return x + 1


    @torch.compiler.allow_in_graph
    def opaque(x):
        print(x)
        return x + 1


    class Sub(nn.Module):
        def forward(self, x):
            return x * x.mean().item()


    @torch.compiler.disable
    class Logger(nn.Module):
        def forward(self, x):
            print(x)
            return x


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.sub = torch.compiler.disable(Sub())
            self.log = Logger()
            self.debug = torch.compiler.disable(self.debug)

        def debug(self, x):
            print(x)
            return x

        def forward(self, x):
            x = self.debug(x)
            x = self.sub(x)
            x = self.log(x)
            return loose(opaque(x))


    @torch.compile
    def run(x):
        return shallow(stats(x))


    def breakscan_examples():
        yield run, (torch.ones(3),)
        yield Net(), (torch.ones(3),)
"""
# Measured on 2.13: a call of a disabled function, method, instance or class is a graph break
# (BRK208) and nothing below it is traced, except under `disable(recursive=False)`, whose callees
# Dynamo traces as frames of their own (the `.item()` in `leaf`, reached through `shallow`);
# `nonstrict_trace` and `allow_in_graph` functions are called without a break and not traced.
MARKER_PREDICTIONS = {
    ("BRK102", 7),  # leaf, through shallow (recursive=False)
    ("BRK208", 60),  # self.debug = torch.compiler.disable(self.debug)
    ("BRK208", 61),  # self.sub = torch.compiler.disable(Sub())
    ("BRK208", 62),  # an instance of a disabled class
    ("BRK208", 68),  # shallow(stats(x)): stats disabled by assignment, shallow by decorator
}


def test_disable_forms_and_untraced_markers(tmp_path: Path) -> None:
    write_files(tmp_path, {"model.py": MARKERS})
    findings = cli_findings(tmp_path, "model.py", "--no-dynamic", "--regions", "explicit")
    assert {(f["rule_id"], f["line"]) for f in findings} == MARKER_PREDICTIONS
    assert next(f["chain"] for f in findings if f["line"] == 7) == ["run", "shallow", "leaf"]


BY_ASSIGNMENT = """
    import torch


    def lookup(x):
        print("lookup", x.shape)
        return x * 2


    def table():
        print("built once")
        return 3


    class Model:
        def report(self, x):
            return x.max().item()

        def step(self, x):
            return self.report(x) + constant() + frozen(x) + outer(x)


    def sink(x):
        return x * x.min().item()


    @torch._dynamo.decorators.skip
    def outer(x):
        return sink(x)


    frozen = torch._dynamo.nonstrict_trace(lookup)
    constant = torch._dynamo.assume_constant_result(table)
    Model.report = torch.compiler.disable(Model.report)
    model = Model()
    fast_step = torch.compile(model.step)


    def breakscan_examples():
        yield model.step, (torch.ones(3),)
"""
# self.report(x) and outer(x) break (BRK208); constant() and frozen(x) are called, not traced;
# `skip` skips only outer's own frame: sink, which it calls, is traced (BRK102).
BY_ASSIGNMENT_PREDICTIONS = {("BRK208", 20), ("BRK102", 24)}


def test_untraced_markers_by_assignment_and_disabled_method(tmp_path: Path) -> None:
    write_files(tmp_path, {"model.py": BY_ASSIGNMENT})
    got = {(f["rule_id"], f["line"]) for f in cli_findings(tmp_path, "model.py", "--no-dynamic")}
    assert got == BY_ASSIGNMENT_PREDICTIONS


@pytest.mark.dynamic
@requires_torch
def test_dynamo_confirms_markers_by_assignment(tmp_path: Path) -> None:
    write_files(tmp_path, {"model.py": BY_ASSIGNMENT})
    findings = cli_findings(tmp_path, "model.py", "--regions", "explicit", "--backend", "eager")
    assert {(f["rule_id"], f["line"], f["status"]) for f in findings} == {
        (rule, line, "confirmed") for rule, line in BY_ASSIGNMENT_PREDICTIONS}


@pytest.mark.dynamic
@requires_torch
def test_dynamo_confirms_the_disable_forms(tmp_path: Path) -> None:
    write_files(tmp_path, {"model.py": MARKERS})
    findings = cli_findings(tmp_path, "model.py", "--regions", "explicit", "--backend", "eager")
    assert {(f["rule_id"], f["line"], f["status"]) for f in findings} == {
        (rule, line, "confirmed") for rule, line in MARKER_PREDICTIONS}


@pytest.mark.dynamic
@requires_torch
def test_dynamo_confirms_a_compiled_alias_and_compile_with_options(tmp_path: Path) -> None:
    write_files(tmp_path, {"model.py": """
        import functools

        import torch


        def scale(x):
            return x * x.sum().item()


        def shift(x):
            print("shift", x.shape)
            return x + 1


        def scaled(x, factor):
            return x - x.mean().item() * factor


        fast = torch.compile(backend="eager", mode="default")(scale)
        shifted = torch.compile(shift, backend="eager")
        half = torch.compile(functools.partial(scaled, factor=0.5), backend="eager")


        def breakscan_examples():
            yield fast, (torch.ones(3),)
            yield shifted, (torch.ones(3),)
            yield half, (torch.ones(3),)
    """})
    expected = {("BRK102", 8), ("BRK201", 12), ("BRK102", 17)}
    static = cli_findings(tmp_path, "model.py", "--no-dynamic", "--regions", "explicit")
    assert {(f["rule_id"], f["line"]) for f in static} == expected
    findings = cli_findings(tmp_path, "model.py", "--regions", "explicit", "--backend", "eager")
    assert {(f["rule_id"], f["line"], f["status"]) for f in findings} == {
        (rule, line, "confirmed") for rule, line in expected}


PASSED_IN = """
    import torch
    from torch import nn


    def apply(fn, x):
        return fn(x) * 2


    def keep(fn, x):
        registry = [fn]
        return x + len(registry)


    def scale(x):
        return x * x.sum().item()


    def shift(x):
        return x + x.max().item()


    class Net(nn.Module):
        def helper(self, x):
            return x * x.min().item()

        def forward(self, x):
            x = apply(self.helper, x)
            x = keep(shift, x)
            return apply(scale, x)


    def breakscan_examples():
        yield Net(), (torch.ones(3),)
"""


def test_functions_passed_in_and_called_there_are_in_the_region(tmp_path: Path) -> None:
    write_files(tmp_path, {"model.py": PASSED_IN})
    findings = cli_findings(tmp_path, "model.py", "--no-dynamic", "--regions", "explicit")
    assert {(f["rule_id"], f["line"]): f["chain"] for f in findings} == {
        ("BRK102", 16): ["Net.forward", "apply", "scale"],
        ("BRK102", 25): ["Net.forward", "apply", "Net.helper"],
    }  # `shift` is only stored by `keep`, never called: not traced


@pytest.mark.dynamic
@requires_torch
def test_dynamo_confirms_functions_passed_in(tmp_path: Path) -> None:
    write_files(tmp_path, {"model.py": PASSED_IN})
    findings = cli_findings(tmp_path, "model.py", "--regions", "explicit", "--backend", "eager")
    breaks = {(f["rule_id"], f["line"], f["status"]) for f in findings if f["rule_id"] == "BRK102"}
    assert breaks == {("BRK102", 16, "confirmed"), ("BRK102", 25, "confirmed")}
    assert not [f for f in findings if f["status"] == "refuted"]


CALLABLE_INSTANCES = """
    import torch
    from torch import nn


    class Scale:
        def __init__(self, factor):
            self.factor = factor

        def __call__(self, x):
            return x * x.sum().item() * self.factor


    class Unused:
        def __call__(self, x):
            return x * x.max().item()


    scale = Scale(2.0)


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm = Scale(0.5)
            self.unused = Unused()

        def forward(self, x):
            return scale(self.norm(x))


    def breakscan_examples():
        yield Net(), (torch.ones(3),)
"""


@pytest.mark.dynamic
@requires_torch
def test_project_call_method_of_instances_called_in_a_region(tmp_path: Path) -> None:
    write_files(tmp_path, {"model.py": CALLABLE_INSTANCES})
    static = cli_findings(tmp_path, "model.py", "--no-dynamic", "--regions", "explicit")
    assert [(f["rule_id"], f["line"], f["chain"]) for f in static] == [
        ("BRK102", 11, ["Net.forward", "Scale.__call__"])]  # Unused is built, never called
    dynamic = cli_findings(tmp_path, "model.py", "--regions", "explicit", "--backend", "eager")
    assert ("BRK102", 11, "confirmed") in {(f["rule_id"], f["line"], f["status"]) for f in dynamic}
    assert not [f for f in dynamic if f["status"] == "refuted"]


@pytest.mark.dynamic
@requires_torch
def test_checkpoint_bodies_are_traced(tmp_path: Path) -> None:
    write_files(tmp_path, {"model.py": """
        import torch
        from torch import nn
        from torch.utils.checkpoint import checkpoint


        def block(x):
            return x.sin() * x.sum().item()


        class Net(nn.Module):
            def inner(self, x):
                print("inner", x.shape)
                return x.cos()

            def forward(self, x):
                x = checkpoint(block, x, use_reentrant=False)
                return torch.utils.checkpoint.checkpoint(self.inner, x, use_reentrant=False)


        def breakscan_examples():
            yield Net(), (torch.ones(3, requires_grad=True),)
    """})
    static = cli_findings(tmp_path, "model.py", "--no-dynamic", "--regions", "explicit")
    assert {(f["rule_id"], f["line"]): f["chain"] for f in static} == {
        ("BRK102", 8): ["Net.forward", "block"], ("BRK201", 13): ["Net.forward", "Net.inner"]}
    dynamic = cli_findings(tmp_path, "model.py", "--regions", "explicit", "--backend", "eager")
    assert {(f["rule_id"], f["line"], f["status"]) for f in dynamic} == {
        ("BRK102", 8, "confirmed"), ("BRK201", 13, "confirmed")}


def test_function_passed_to_a_disabled_function_is_not_traced(tmp_path: Path) -> None:
    write_files(tmp_path, {"model.py": """
        import torch


        @torch.compiler.disable
        def apply(fn, x):
            return fn(x)


        def scale(x):
            return x * x.sum().item()


        @torch.compile
        def f(x):
            return apply(scale, x)
    """})
    got = {(f["rule_id"], f["line"]) for f in cli_findings(tmp_path, "model.py", "--no-dynamic")}
    assert got == {("BRK208", 16)}


@pytest.mark.dynamic
@requires_torch
def test_property_getters_read_in_a_region_are_traced(tmp_path: Path) -> None:
    write_files(tmp_path, {"model.py": """
        import functools

        import torch
        from torch import nn


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(3, 3)

            @property
            def scale(self):
                print("scale read")
                return 2.0

            @functools.cached_property
            def unused(self):
                return torch.ones(3).max().item()

            def forward(self, x):
                return self.proj(x) * self.scale


        def breakscan_examples():
            yield Net(), (torch.ones(3),)
    """})
    static = cli_findings(tmp_path, "model.py", "--no-dynamic", "--regions", "explicit")
    assert [(f["rule_id"], f["line"], f["chain"]) for f in static] == [
        ("BRK201", 15, ["Net.forward", "Net.scale"])]  # `unused` is never read
    dynamic = cli_findings(tmp_path, "model.py", "--regions", "explicit", "--backend", "eager")
    assert {(f["rule_id"], f["line"], f["status"]) for f in dynamic} == {("BRK201", 15, "confirmed")}
