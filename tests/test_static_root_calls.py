"""An unannotated parameter of a compiled function is a tensor by convention, unless the calls
its module makes of it say otherwise: `fn(torch.ones(3), 3)` makes the second parameter a Python
int, so `range(n)` is traced, not a break (measured on 2.13). A tensor passed at every call is a
tensor for sure, so rules that spare convention-only tensors (BRK259 on `2 in ids`) report it.
Calls through a compiled alias, in `main()`, at module level and `yield fn, (args)` in
`breakscan_examples` all count, in its module and in the modules importing it; a function used
other than by a call keeps the convention."""

from __future__ import annotations

import pytest

from tests.conftest import break_statuses, cli_findings, requires_torch, static_findings, write_files

SCRIPT = '''
import torch


@torch.compile(backend="eager")
def repeat(x, n, flag):
    for _ in range(n):
        x = x * 2
    if flag:
        x = x - 1
    return x


def shift(x, n, ids):
    for _ in range(n):
        x = x + 1
    if 2 in ids:
        x = x - 1
    return x


fast_shift = torch.compile(shift, backend="eager")


@torch.compile(backend="eager")
def anything(x, n):
    for _ in range(n):
        x = x + 1
    return x


def main():
    x = torch.ones(3)
    repeat(x, 3, True)
    fast_shift(x, torch.tensor(2), torch.tensor([1, 2]))
    anything(x, 2)
    anything(x, torch.tensor(2))


def breakscan_examples():
    x = torch.ones(3)
    yield repeat, (x, 2, False)
    yield fast_shift, (x, torch.tensor(2), torch.tensor([1, 2]))


if __name__ == "__main__":
    main()
'''


def _lines(findings, rule):
    return {f.line for f in findings if f.rule_id == rule}


def test_calls_of_a_compiled_function_give_its_parameters(tmp_path):
    found = static_findings(tmp_path, {"script.py": SCRIPT}, regions="explicit")
    assert 7 not in _lines(found, "BRK107"), found  # range(n): every call passes an int
    assert 9 not in _lines(found, "BRK101"), found  # if flag: a bool
    assert 15 in _lines(found, "BRK107"), found  # range(n): the alias is called with a tensor
    assert 17 in _lines(found, "BRK259"), found  # 2 in ids: a tensor for sure, not by convention
    assert 27 in _lines(found, "BRK107"), found  # an int at one call, a tensor at another: the convention


OTHER = "import torch\nfrom script import repeat\n\nrepeat(torch.ones(3), torch.tensor(2), True)\n"


def test_the_calls_of_an_importing_module_count_too(tmp_path):
    found = static_findings(tmp_path, {"script.py": SCRIPT, "other.py": OTHER}, regions="explicit")
    assert 7 in _lines([f for f in found if f.path.endswith("script.py")], "BRK107"), found  # int and tensor


def test_a_function_passed_as_a_value_keeps_the_convention(tmp_path):
    source = SCRIPT.replace("    anything(x, 2)\n", "    anything(x, 2)\n    print(repeat)\n")
    found = static_findings(tmp_path, {"script.py": source}, regions="explicit")
    assert 7 in _lines(found, "BRK107"), found


@pytest.mark.dynamic
@requires_torch
def test_dynamo_agrees_with_the_kinds_calls_pass(tmp_path):
    write_files(tmp_path, {"script.py": SCRIPT})
    found = break_statuses(cli_findings(tmp_path, "check", "script.py", "--show-refuted", cache=tmp_path / "cache"))
    assert ("BRK107", "script.py", 15, "confirmed") in found, found
    assert ("BRK259", "script.py", 17, "confirmed") in found, found
    assert not {f for f in found if f[3] in ("refuted", "observed")}, found


def test_cache_sees_a_new_importer(tmp_path):
    """A module that starts importing and calling the compiled function with a tensor changes its
    parameter's kind: the cached findings of script.py must not be reused."""
    write_files(tmp_path, {"script.py": SCRIPT, "other.py": "import os\n"})
    cache = tmp_path / "cache"
    first = cli_findings(tmp_path, "check", ".", "--no-dynamic", cache=cache)
    assert not any(f["rule_id"] == "BRK107" and f["line"] == 7 for f in first), first
    write_files(tmp_path, {"other.py": OTHER})
    second = cli_findings(tmp_path, "check", ".", "--no-dynamic", cache=cache)
    assert any(f["rule_id"] == "BRK107" and f["line"] == 7 for f in second), second


PYTHON_VALUES = '''
import torch
from torch import nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x, mode):
        if mode.startswith("train"):
            return self.lin(x)
        return x


@torch.compile(backend="eager")
def tagged(x, name):
    if name.lower() == "abc":
        return x + 1
    return x


def main():
    tagged(torch.ones(3), "ABC")
'''


def test_parameters_used_as_python_values_are_not_tensors(tmp_path):
    """`mode.startswith(...)`: Tensor has no such method, so `mode` is not a tensor even as an
    unannotated `forward` parameter; `name.lower()` with a string literal at every call alike."""
    found = static_findings(tmp_path, {"heads.py": PYTHON_VALUES})
    assert not found, found


@pytest.mark.dynamic
@requires_torch
def test_dynamo_sees_no_break_on_python_value_parameters(tmp_path):
    source = PYTHON_VALUES + '''

def breakscan_examples():
    yield Head(), (torch.ones(2, 4), "train")
    yield tagged, (torch.ones(3), "abc")
'''
    write_files(tmp_path, {"heads.py": source})
    found = break_statuses(cli_findings(tmp_path, "check", "heads.py", "--show-refuted", cache=tmp_path / "cache"))
    assert not found, found
