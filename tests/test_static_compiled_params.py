"""Every parameter of a compiled function is read for what its annotation and default say: a
`str` parameter that is not the last one is still a string argument (BRK505), and a number one a
Python number (BRK502). A regression test: for a while only the last parameter was read."""

from __future__ import annotations

from tests.conftest import rule_lines, static_findings

SOURCE = '''
import torch


@torch.compile(backend="eager")
def f(x, mode: str = "a", scale: float = 1.0, flag=True):
    if mode == "a":
        return x
    return x * scale
'''


def test_each_parameter_is_read(tmp_path):
    assert rule_lines(static_findings(tmp_path, {"m.py": SOURCE})) == {("BRK505", 7), ("BRK502", 9)}
