"""Lambdas stored on `self` and called in a compile region: Dynamo inlines them at the call.

`self.act = act or (lambda t: t if t.sum() > 0 else -t)` in `__init__`, then `self.act(h)` in
`forward`: the lambda's body is checked where it is called, its parameter taking the kind of the
argument (a tensor here: BRK101 on the lambda's line), and the project functions it calls
(`lambda t: upsample(t, 2)`) join the region. A lambda given a Python number, or one the region
never calls, says nothing. Checked with `breakscan run` against Dynamo on 2.13 and 2.15."""

from __future__ import annotations

import pytest

from tests.conftest import assert_script_confirms, requires_torch, rule_lines, static_findings

SOURCE = '''
    import torch
    import torch.nn as nn


    def upsample(x, factor):
        if x.abs().max() > 10:
            x = x / 10
        return nn.functional.interpolate(x, scale_factor=factor)


    class Block(nn.Module):
        def __init__(self, up=True, act=None):
            super().__init__()
            self.conv = nn.Conv2d(3, 3, 3, padding=1)
            self.up = (lambda t: upsample(t, 2)) if up else nn.Identity()
            self.act = act or (lambda t: t if t.sum() > 0 else -t)
            self.log = lambda t: print("norm", t.norm())
            self.count = lambda xs: len(xs)
            self.scale = lambda s: 2.0 if s > 1 else 1.0
            self.unused = lambda t: t.tolist()

        def forward(self, x):
            h = self.act(self.conv(x))
            self.log(h)
            n = self.count([h, x])
            return self.up(h) * n * self.scale(3)


    def main():
        model = torch.compile(Block(), backend="eager")
        for _ in range(2):
            model(torch.randn(1, 3, 8, 8))


    if __name__ == "__main__":
        main()
    '''

EXPECTED = {("BRK101", 7), ("BRK101", 17), ("BRK201", 18)}


def test_a_lambda_on_self_is_checked_where_the_region_calls_it(tmp_path):
    assert rule_lines(static_findings(tmp_path, {"train.py": SOURCE})) == EXPECTED


def test_a_lambda_the_region_does_not_call_says_nothing(tmp_path):
    source = SOURCE.replace("h = self.act(self.conv(x))", "h = self.conv(x)").replace("self.log(h)", "pass")
    assert rule_lines(static_findings(tmp_path, {"train.py": source})) == {("BRK101", 7)}


def test_a_lambda_called_with_a_tensor_where_it_was_given_a_number(tmp_path):
    source = SOURCE.replace("self.scale(3)", "self.scale(h.mean())")
    assert rule_lines(static_findings(tmp_path, {"train.py": source})) == EXPECTED | {("BRK101", 20)}


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_agrees(tmp_path):
    assert_script_confirms(tmp_path, SOURCE, EXPECTED)
