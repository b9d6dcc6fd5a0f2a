"""An `int`/`float`/`bool` annotation that every call contradicts: Dynamo sees what is passed.

`def scale_for(step: int, ...)` called with a tensor at every call (here the compiled function's
own parameter, a tensor) makes `if step > 10:` a data-dependent branch; so does a compiled
function annotated `step: int` that its calls give `torch.tensor(...)` or the elements of
`torch.arange(...)`, and a method compiled from an instance (`step = torch.compile(sched.step)`,
`sched = Scheduler()`) that its calls give the elements of a tensor attribute. A mix of ints and tensors, or ints alone, keeps the annotation (precision
first), and BRK502 (a varying Python number) is not said of a parameter that gets tensors.
Checked with `breakscan run` against Dynamo."""

from __future__ import annotations

import pytest

from tests.conftest import (
    assert_dynamo_confirms, break_statuses, requires_torch, rule_lines,
    run_findings, static_findings, write_files,
)

HELPER = '''
    import torch


    def scale_for(step: int, base: float) -> float:
        if step > 10:
            return base * 2
        return base


    def warmup(x, step: int):
        if step < 5:
            return x * 0.5
        return x


    @torch.compile(backend="eager")
    def train_step(x, step):
        y = x * scale_for(step, 1.0)
        return warmup(y, 3)


    if __name__ == "__main__":
        train_step(torch.ones(3), torch.tensor(12))
    '''

ROOT = '''
    import torch


    @torch.compile(backend="eager")
    def decay(x, step: int):
        if step > 10:
            return x * 0.5
        return x


    def main():
        for step in torch.arange(3):
            decay(torch.ones(3), step)
        decay(torch.ones(3), torch.tensor(12))


    if __name__ == "__main__":
        main()
    '''


BOUND = '''
    import torch
    from torch import nn


    class Scheduler:
        def __init__(self, num_steps=50):
            self.alphas_cumprod = torch.cumprod(1.0 - torch.linspace(1e-4, 0.02, 1000), dim=0)
            self.timesteps = torch.linspace(999, 0, num_steps).long()

        def step(self, eps, t: int, x):
            prev_t = t - 20
            a_t = self.alphas_cumprod[t]
            a_prev = self.alphas_cumprod[prev_t] if prev_t >= 0 else torch.tensor(1.0)
            return a_prev.sqrt() * (x - (1 - a_t).sqrt() * eps) / a_t.sqrt()


    def main():
        net = nn.Conv2d(3, 3, 3, padding=1)
        sched = Scheduler()
        step = torch.compile(sched.step, backend="eager")
        x = torch.randn(1, 3, 8, 8)
        with torch.no_grad():
            for t in sched.timesteps[:2]:
                x = step(net(x), t, x)


    if __name__ == "__main__":
        main()
    '''


def test_a_helper_annotated_int_that_gets_a_tensor(tmp_path):
    # `warmup(y, 3)` gets an int: its `if step < 5` stays a Python branch
    assert rule_lines(static_findings(tmp_path, {"train.py": HELPER})) == {("BRK101", 6)}


def test_a_compiled_function_annotated_int_that_its_calls_give_tensors(tmp_path):
    assert rule_lines(static_findings(tmp_path, {"root.py": ROOT})) == {("BRK101", 7)}  # and no BRK502


@pytest.mark.parametrize("call", ["decay(torch.ones(3), 12)", "decay(torch.ones(3), int(torch.tensor(12)))"])
def test_an_int_at_some_call_keeps_the_annotation(tmp_path, call):
    source = ROOT.replace("decay(torch.ones(3), torch.tensor(12))", call)
    assert rule_lines(static_findings(tmp_path, {"root.py": source})) == {("BRK502", 7)}


def test_a_method_compiled_from_an_instance_whose_calls_give_tensors(tmp_path):
    assert rule_lines(static_findings(tmp_path, {"denoise.py": BOUND})) == {("BRK101", 14)}


def test_a_method_compiled_from_an_instance_given_ints_keeps_the_annotation(tmp_path):
    source = BOUND.replace("x = step(net(x), t, x)", "x = step(net(x), int(t), x)")
    assert not rule_lines(static_findings(tmp_path, {"denoise.py": source})) & {("BRK101", 14)}


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
@pytest.mark.parametrize("name,source,expected", [("train.py", HELPER, ("BRK101", "train.py", 6)),
                                                  ("root.py", ROOT, ("BRK101", "root.py", 7)),
                                                  ("denoise.py", BOUND, ("BRK101", "denoise.py", 14))])
def test_dynamo_agrees(tmp_path, name, source, expected):
    write_files(tmp_path, {name: source})
    assert_dynamo_confirms(break_statuses(run_findings(tmp_path, name)), {expected})
