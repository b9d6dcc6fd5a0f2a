"""An `int`/`float`/`bool` annotation that every call contradicts: Dynamo sees what is passed.

`def scale_for(step: int, ...)` called with a tensor at every call (here the compiled function's
own parameter, a tensor) makes `if step > 10:` a data-dependent branch; so does a compiled
function annotated `step: int` that its calls give `torch.tensor(...)` or the elements of
`torch.arange(...)`. A mix of ints and tensors, or ints alone, keeps the annotation (precision
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


def test_a_helper_annotated_int_that_gets_a_tensor(tmp_path):
    # `warmup(y, 3)` gets an int: its `if step < 5` stays a Python branch
    assert rule_lines(static_findings(tmp_path, {"train.py": HELPER})) == {("BRK101", 6)}


def test_a_compiled_function_annotated_int_that_its_calls_give_tensors(tmp_path):
    assert rule_lines(static_findings(tmp_path, {"root.py": ROOT})) == {("BRK101", 7)}  # and no BRK502


@pytest.mark.parametrize("call", ["decay(torch.ones(3), 12)", "decay(torch.ones(3), int(torch.tensor(12)))"])
def test_an_int_at_some_call_keeps_the_annotation(tmp_path, call):
    source = ROOT.replace("decay(torch.ones(3), torch.tensor(12))", call)
    assert rule_lines(static_findings(tmp_path, {"root.py": source})) == {("BRK502", 7)}


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
@pytest.mark.parametrize("name,source,expected", [("train.py", HELPER, ("BRK101", "train.py", 6)),
                                                  ("root.py", ROOT, ("BRK101", "root.py", 7))])
def test_dynamo_agrees(tmp_path, name, source, expected):
    write_files(tmp_path, {name: source})
    assert_dynamo_confirms(break_statuses(run_findings(tmp_path, name)), {expected})
