"""A compile target taken from a `for` over a literal tuple or list: `for name, fn, args in
[("timed", timed, (x,)), ("gate", Gate(), (x,))]: torch.compile(fn)(*args)` compiles each element
(index._Indexer.loop_targets). Before, the loop variable named no project function, so the
static pass found no region in a script written this way (a benchmark or smoke-test loop).
Checked with `breakscan run` on 2.13 and 2.15."""

from __future__ import annotations

import pytest

from tests.conftest import assert_script_confirms, requires_torch, rule_lines, static_findings

SOURCE = '''
    import time

    import torch
    from torch import nn


    def timed(x):
        t0 = time.time()
        return x * 2, t0


    class Gate(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(4, 4)

        def forward(self, x):
            if x.sum() > 0:
                return self.proj(x)
            return x


    def untouched(x):
        return x.item()


    def main():
        x = torch.randn(2, 4)
        for name, fn, args in [("timed", timed, (x,)), ("gate", Gate(), (x,))]:
            out = torch.compile(fn, backend="eager")(*args)
            print(name, type(out).__name__)
        for build in (Gate,):
            model = torch.compile(build(), backend="eager")
            model(x)
        untouched(x)


    if __name__ == "__main__":
        main()
    '''


def test_loop_elements_are_compile_regions(tmp_path):
    found = rule_lines(static_findings(tmp_path, SOURCE, regions="explicit"))
    assert {("BRK204", 9), ("BRK101", 19)} <= found
    assert not {line for _, line in found if line == 25}  # never compiled


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms(tmp_path):
    assert_script_confirms(tmp_path, SOURCE, {("BRK204", 9), ("BRK101", 19)})
