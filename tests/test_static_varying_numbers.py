"""A compiled function's unannotated parameter that its calls give a changing Python number
(`for step in range(12): train_step(x, step)`, `step += 1`, two different literals) recompiles:
Dynamo specializes on the first value (guard `step == 0`), and a branch on it keeps guarding
(`(step % 5) != 0`). BRK502 is said once per parameter, at its first use. The same number at
every call is no recompile. Checked with `breakscan run` against Dynamo."""

from __future__ import annotations

import pytest

from tests.conftest import (
    located,
    requires_torch,
    rule_lines,
    run_findings,
    static_findings,
    static_located,
    write_files,
)

LOOP = '''
    import torch


    @torch.compile(backend="eager")
    def train_step(x, step):
        if step % 5 == 0:
            x = x * 2
        return x + step


    def main():
        x = torch.ones(3)
        for step in range(12):
            x = train_step(x, step)


    if __name__ == "__main__":
        main()
    '''


def test_a_loop_counter_passed_at_a_call(tmp_path):
    assert rule_lines(static_findings(tmp_path, {"train.py": LOOP})) == {("BRK502", 7)}


@pytest.mark.parametrize("calls,expected", [
    ("    step = 0\n        while step < 12:\n            x = train_step(x, step)\n            step += 1",
     {("BRK502", 7)}),
    ("    x = train_step(x, 1)\n        x = train_step(x, 2)", {("BRK502", 7)}),
    ("    x = train_step(x, 3)\n        x = train_step(x, 3)", set()),
    ("    for _ in range(12):\n            x = train_step(x, 3)", set()),
])
def test_what_the_calls_pass(tmp_path, calls, expected):
    source = LOOP.replace("    for step in range(12):\n            x = train_step(x, step)", calls)
    assert source != LOOP
    assert rule_lines(static_findings(tmp_path, {"train.py": source})) == expected


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_recompiles_where_predicted(tmp_path):
    write_files(tmp_path, {"train.py": LOOP})
    findings = run_findings(tmp_path, "train.py")
    statuses = {(*located([f]).pop(), f["status"]) for f in findings}
    assert statuses == {("BRK502", "train.py", 7, "confirmed")}, statuses


_STEP, _MAIN = LOOP.split("    def main():")  # the compiled function in one file, its loop in another
ENGINE = {"engine.py": _STEP,
          "run.py": "\n    import torch\n\n    from engine import train_step\n\n\n    def main():" + _MAIN}


def _by_file(tmp_path, files) -> set[tuple[str, str, int]]:
    """{(rule id, file name, line)} of the static findings of `files`."""
    return static_located(tmp_path, files)


def test_a_loop_counter_passed_from_the_importing_module(tmp_path):
    assert _by_file(tmp_path, ENGINE) == {("BRK502", "engine.py", 7)}


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_recompiles_where_predicted_across_files(tmp_path):
    write_files(tmp_path, ENGINE)
    statuses = {(*located([f]).pop(), f["status"]) for f in run_findings(tmp_path, "run.py")}
    assert statuses == {("BRK502", "engine.py", 7, "confirmed")}, statuses


def test_a_module_level_call_reads_only_module_level_counters(tmp_path):
    """`step` counts up in `other()`, not where the module-level calls pass it: the same number."""
    source = LOOP.replace("    def main():", "    def other():\n        for step in range(3):\n"
                          "            print(step)\n\n\n    step = 3\n    train_step(torch.ones(3), step)\n\n\n"
                          "    def main():").replace("for step in range(12):\n            x = train_step(x, step)",
                                                    "x = train_step(x, 3)")
    assert source != LOOP
    assert rule_lines(static_findings(tmp_path, {"train.py": source})) == set()


DENOISER = '''
    import torch
    from torch import nn


    class Denoiser(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, x, t):
            if t > 5:
                x = x * 0.5
            return self.lin(x) * t
    '''
SAMPLER = '''
    model = torch.compile(Denoiser(), backend="eager")


    @torch.no_grad()
    def sample():
        x = torch.randn(2, 4)
        for t in range(10):
            x = model(x, t)
        return x


    if __name__ == "__main__":
        sample()
    '''


@pytest.mark.parametrize("loop,expected", [("for t in range(10):\n            x = model(x, t)", {("BRK502", 12)}),
                                           ("for t in range(10):\n            x = model(x, 3)", set())])
def test_a_module_called_in_a_loop_with_its_counter(tmp_path, loop, expected):
    """`for t in range(10): model(x, t)` (a diffusion sampling loop): `forward`'s `t` changes."""
    source = DENOISER + SAMPLER.replace("for t in range(10):\n            x = model(x, t)", loop)
    assert rule_lines(static_findings(tmp_path, {"sample.py": source})) == expected


def test_a_module_imported_and_called_in_a_loop(tmp_path):
    files = {"model.py": DENOISER,
             "sample.py": "\n    import torch\n\n    from model import Denoiser\n" + SAMPLER}
    assert _by_file(tmp_path, files) == {("BRK502", "model.py", 12)}


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_recompiles_a_module_called_with_its_loop_counter(tmp_path):
    write_files(tmp_path, {"sample.py": DENOISER + SAMPLER})
    statuses = {(*located([f]).pop(), f["status"]) for f in run_findings(tmp_path, "sample.py")}
    assert statuses == {("BRK502", "sample.py", 12, "confirmed")}, statuses
