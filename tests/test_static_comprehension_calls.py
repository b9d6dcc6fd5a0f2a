"""BRK410: a comprehension whose body calls code that breaks the graph, over an iterator Dynamo
cannot rebuild (Python <= 3.11: the comprehension is a function called with that iterator).

Measured with `breakscan run` on torch 2.13 and 2.15 (Python 3.11): over `d.items()`,
`.values()`, `.keys()`, `zip(...)`, or an `nn.ModuleList` / `nn.Sequential` / `nn.ModuleDict`
on `self` (maybe sliced), a break in a submodule or helper the body calls makes Dynamo break at
the comprehension too (GB0092 "Reconstruction failure", then GB4347 / GB9493 in the
comprehension's own frame). Over `range`, a tuple, a list or `enumerate`, or with the break
written in the comprehension's own code, only the callee's own break happens.
"""

from __future__ import annotations

import sys

import pytest

from tests.conftest import (
    assert_dynamo_confirms,
    break_statuses,
    requires_torch,
    rule_lines,
    run_findings,
    static_findings,
    write_files,
)

pytestmark = pytest.mark.skipif(sys.version_info >= (3, 12), reason="Python 3.12 inlines comprehensions (PEP 709)")

TEMPLATE = '''\
import torch
from torch import nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, h):
        out = self.proj(h)
        if out.sum() > 0:
            return out
        return -out


def noisy(x, m):
    y = m(x)
    print("y", y.shape)
    return y


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)
        self.by_name = nn.ModuleDict({"a": Head(), "b": Head()})
        self.heads = nn.ModuleList([Head(), Head()])
        self.seq = nn.Sequential(Head(), Head())
        self.plain = [Head(), Head()]

    def forward(self, x):
        x = self.lin(x)
        {setup}
        outs = {comprehension}
        return x + sum(outs.values() if isinstance(outs, dict) else outs)


model = torch.compile(Net(){options})
for _ in range(2):
    model(torch.randn(2, 8))
'''
LINE = 35  # the comprehension's line
HEAD_BREAK = ("BRK101", 12)

BREAKING = {
    "module_dict_items": "{k: m(x) for k, m in self.by_name.items()}",
    "module_dict_values": "[m(x) for m in self.by_name.values()]",
    "module_dict_keys": "[self.by_name[k](x) for k in self.by_name.keys()]",
    "module_list": "[m(x) for m in self.heads]",
    "sliced_module_list": "[m(x) for m in self.heads[:2]]",
    "sequential": "[m(x) for m in self.seq]",
    "zip_with_module_list": "[m(x) + y for m, y in zip(self.heads, [x, x])]",
    "local_dict_items": "{k: self.heads[0](v) for k, v in inputs.items()}",
    "helper_in_body": "[noisy(x, m) for m in self.heads]",
    "call_in_filter": "[x * 2 for m in self.heads if m(x).shape[0] > 0]",
}
RESUMING = {
    "range": "[self.heads[i](x) for i in range(2)]",
    "enumerate": "[m(x) * i for i, m in enumerate(self.heads)]",
    "tuple": "[m(x) for m in (self.heads[0], self.heads[1])]",
    "local_list": "[self.heads[0](t) for t in inputs_list]",
    "plain_list_attribute": "[m(x) for m in self.plain]",
    "break_in_own_code": "[m(x).sum().item() * x for m in self.heads]",
    "reversed": "[m(x) for m in reversed(self.heads)]",
}
SETUP = "inputs = {'a': x, 'b': x * 2}; inputs_list = [x, x * 2]"


def _script(comprehension: str, options: str = "") -> str:
    return TEMPLATE.replace("{setup}", SETUP).replace("{comprehension}", comprehension).replace("{options}", options)


@pytest.mark.parametrize("name", sorted(BREAKING))
def test_a_call_that_breaks_in_a_comprehension_over_an_iterator_dynamo_cannot_rebuild(tmp_path, name):
    found = rule_lines(static_findings(tmp_path, {"train.py": _script(BREAKING[name])}))
    assert {HEAD_BREAK, ("BRK410", LINE)} <= found, found


@pytest.mark.parametrize("name", sorted(RESUMING))
def test_no_finding_where_dynamo_rebuilds_the_iterator_or_the_break_is_the_comprehensions_own(tmp_path, name):
    found = rule_lines(static_findings(tmp_path, {"train.py": _script(RESUMING[name])}))
    assert ("BRK410", LINE) not in found, found


def test_no_finding_under_fullgraph(tmp_path):
    source = _script(BREAKING["module_list"], options=", fullgraph=True")
    assert ("BRK410", LINE) not in rule_lines(static_findings(tmp_path, {"train.py": source}))


def test_no_finding_when_nothing_the_body_calls_breaks(tmp_path):
    source = _script(BREAKING["module_list"]).replace("        if out.sum() > 0:\n            return out\n", "")
    found = rule_lines(static_findings(tmp_path, {"train.py": source}))
    assert not {r for r, _ in found if r in ("BRK410", "BRK101")}, found


FUNCTION = '''\
import torch


def encode(v):
    if v.mean() > 0:
        return v * 2
    return v


@torch.compile(backend="eager")
def step(batch):
    feats = {k: encode(v) for k, v in batch.items()}
    return sum(feats.values())


if __name__ == "__main__":
    for _ in range(2):
        step({"a": torch.randn(4), "b": torch.randn(4)})
'''


def test_a_compiled_function_iterating_a_dict_passed_in(tmp_path):
    found = rule_lines(static_findings(tmp_path, {"train.py": FUNCTION}))
    assert {("BRK101", 5), ("BRK410", 12)} <= found, found


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
@pytest.mark.parametrize("name", ["module_dict_items", "module_list", "zip_with_module_list", "local_dict_items",
                                  "helper_in_body"])
def test_dynamo_confirms_brk410(tmp_path, name):
    write_files(tmp_path, {"train.py": _script(BREAKING[name])})
    expected = [("BRK101", "train.py", 12), ("BRK410", "train.py", LINE)]
    if name == "helper_in_body":
        expected.append(("BRK201", "train.py", 19))
    assert_dynamo_confirms(break_statuses(run_findings(tmp_path, "train.py")), expected)


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
@pytest.mark.parametrize("name", ["enumerate", "plain_list_attribute", "break_in_own_code"])
def test_dynamo_resumes_where_brk410_stays_quiet(tmp_path, name):
    write_files(tmp_path, {"train.py": _script(RESUMING[name])})
    found = break_statuses(run_findings(tmp_path, "train.py"))
    assert not {f for f in found if f[2] == LINE and f[0] != "BRK102"}, found
    assert_dynamo_confirms(found, [] if name == "break_in_own_code" else [("BRK101", "train.py", 12)])


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_brk410_in_a_compiled_function(tmp_path):
    write_files(tmp_path, {"train.py": FUNCTION})
    assert_dynamo_confirms(break_statuses(run_findings(tmp_path, "train.py")),
                           [("BRK101", "train.py", 5), ("BRK410", "train.py", 12)])


def _with_print_after(comprehension: str) -> str:
    return _script(comprehension).replace("        return x + sum(", "        print('outs', len(outs))\n        return x + sum(")


def test_the_lines_after_the_comprehension_run_eagerly(tmp_path):
    """The frame falls back at the comprehension: a `print` after it runs eagerly (no BRK201)."""
    found = rule_lines(static_findings(tmp_path, {"train.py": _with_print_after(BREAKING["module_list"])}))
    assert ("BRK410", LINE) in found and ("BRK201", LINE + 1) not in found, found
    resumed = rule_lines(static_findings(tmp_path / "resumed", {"train.py": _with_print_after(RESUMING["enumerate"])}))
    assert ("BRK201", LINE + 1) in resumed, resumed
    # under an `if`, the other arm goes on to the print: it stays predicted
    in_arm = _with_print_after(BREAKING["module_list"]).replace(
        "        outs = [m(x) for m in self.heads]\n",
        "        if x.shape[0] > 1:\n            outs = [m(x) for m in self.heads]\n        else:\n            outs = [x]\n")
    found = rule_lines(static_findings(tmp_path / "arm", {"train.py": in_arm}))
    assert ("BRK410", LINE + 1) in found and ("BRK201", LINE + 4) in found, found


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_runs_the_rest_of_the_frame_eagerly_after_brk410(tmp_path):
    write_files(tmp_path, {"train.py": _with_print_after(BREAKING["module_list"])})
    assert_dynamo_confirms(break_statuses(run_findings(tmp_path, "train.py")),
                           [("BRK101", "train.py", 12), ("BRK410", "train.py", LINE)])


# Generator expressions consumed step by step: BRK411 over a list. Over a module container or
# range, 2.13 fails on the generator's cell in some functions (GB0091, `return sum(...)`) and not
# in others (this template), 2.15 resumes: not reported. `list(...)` of one is unrolled and resumes.
GENERATORS = {
    "sum_over_local_list": ("sum(self.heads[0](t) for t in inputs_list)", "BRK411", "BRK411"),
    "any_over_local_list": ("x * any(self.heads[0](t).shape[0] > 9 for t in inputs_list)", "BRK411", "BRK411"),
    "sum_over_plain_list_attribute": ("sum(m(x) for m in self.plain)", "BRK411", "BRK411"),
    "sum_over_module_list": ("sum(m(x) for m in self.heads)", None, None),
    "sum_over_range": ("sum(self.heads[i](x) for i in range(2))", None, None),
    "list_of_generator": ("list(m(x) for m in self.heads)", None, None),
    "tuple_of_generator": ("tuple(self.heads[0](t) for t in inputs_list)", None, None),
}


def _generator_script(expression: str) -> str:
    return _script("[0]").replace("        outs = [0]\n", f"        outs = [{expression}]\n")


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_generator_expressions_whose_body_calls_code_that_breaks(tmp_path, name):
    from breakscan.catalog import load_catalog
    from breakscan.config import Config
    from breakscan.scan import active_rules, parse_version
    from breakscan.static.engine import scan_files

    expression, on_213, on_215 = GENERATORS[name]
    path = write_files(tmp_path, {"train.py": _generator_script(expression)})[0]
    for version, expected in (("2.13", on_213), ("2.15", on_215)):
        found = rule_lines(scan_files([path], active_rules(load_catalog(), Config(), parse_version(version))).findings)
        at_line = {rule for rule, line in found if line == LINE and rule.startswith("BRK41")}
        assert at_line == ({expected} if expected else set()), (version, found)


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
@pytest.mark.parametrize("name", ["sum_over_local_list", "sum_over_module_list", "list_of_generator"])
def test_dynamo_confirms_generator_expression_fallbacks(tmp_path, name):
    import torch

    expression, on_213, on_215 = GENERATORS[name]
    newer = tuple(int(p) for p in torch.__version__.split(".")[:2]) >= (2, 14)
    expected = on_215 if newer else on_213
    write_files(tmp_path, {"train.py": _generator_script(expression)})
    found = break_statuses(run_findings(tmp_path, "train.py"))
    assert_dynamo_confirms(found, [("BRK101", "train.py", 12)] + ([(expected, "train.py", LINE)] if expected else []))
