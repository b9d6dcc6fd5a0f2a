"""The torch-derived data under rules/data/ and the graph-break registry coverage page.

scripts/registry_coverage.py decides every GB id of the installed torch's registry (rule, triage
file, or undecided); scripts/refresh_torch_data.py derives op lists from torch's tags. BRK105 reads
the `dynamic_output_shape` list: each name in it is checked against real Dynamo through the CLI.
"""

from __future__ import annotations

import importlib.metadata
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import HAS_TORCH, ROOT, requires_torch

SCRIPTS = ROOT / "scripts"
TORCH_OPS = ROOT / "rules" / "data" / "torch-ops.json"
BREAKSCAN = Path(sys.executable).with_name("breakscan")


def _script(name: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPTS / name), *args], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)


def _installed_registry() -> dict:
    import importlib.util

    origin = Path(importlib.util.find_spec("torch").origin)
    return json.loads((origin.parent / "_dynamo" / "graph_break_registry.json").read_text(encoding="utf-8"))


@requires_torch
def test_every_gb_id_of_the_installed_registry_is_decided():
    if not importlib.metadata.version("torch").startswith("2.13."):
        pytest.skip("the triage file was written against torch 2.13; a newer torch lists its new ids")
    result = _script("registry_coverage.py", "--check")
    assert result.returncode == 0, result.stdout + result.stderr


@requires_torch
def test_coverage_page_has_one_row_per_registry_id_and_counts_that_add_up(tmp_path):
    out = tmp_path / "coverage.md"
    result = _script("registry_coverage.py", "--output", str(out))
    assert result.returncode == 0, result.stderr
    page = out.read_text(encoding="utf-8")
    registry = _installed_registry()
    rows = re.findall(r"^\| (GB\d{4}) \| .* \| (rule|candidate|not-static|undecided) \| ", page, re.M)
    assert [gb for gb, _ in rows] == list(registry)
    total = int(re.search(r"^\| \*\*total\*\* \| (\d+) \|", page, re.M).group(1))
    counts = {d: int(n) for d, n in re.findall(r"^\| (rule|candidate|not-static|undecided) \| (\d+) \|$", page, re.M)}
    assert total == len(registry) == sum(counts.values())
    assert counts["rule"] >= 20  # the rules' own gb_ids, derived, not restated in the triage file
    assert re.search(r"^\| GB0036 \| Dynamic shape operator \| rule \| BRK105, BRK106(, BRK\d{3})* \|$", page, re.M)


def test_an_id_decided_twice_in_the_triage_file_is_an_error(tmp_path):
    sys.path.insert(0, str(SCRIPTS))
    try:
        import registry_coverage
    finally:
        sys.path.remove(str(SCRIPTS))
    triage = tmp_path / "triage.toml"
    triage.write_text('[reasons]\ninternal = "x"\n'
                      '[[group]]\ndecision = "not-static"\nreason = "internal"\nwhy = "a"\nids = ["GB0001"]\n'
                      '[[group]]\ndecision = "candidate"\npattern = "p"\nids = ["GB0001"]\n', encoding="utf-8")
    with pytest.raises(ValueError, match="GB0001 is decided twice"):
        registry_coverage.load_triage(triage)


@requires_torch
@pytest.mark.dynamic
def test_refresh_script_reproduces_the_committed_op_lists(tmp_path):
    stamped = json.loads(TORCH_OPS.read_text(encoding="utf-8"))["torch"]
    if importlib.metadata.version("torch") != stamped:
        pytest.skip(f"rules/data was generated with torch {stamped}")
    result = _script("refresh_torch_data.py", "--out", str(tmp_path))
    assert result.returncode == 0, result.stderr
    for name in ("torch-ops.json", "dynamo-skips.json"):
        assert (tmp_path / name).read_text() == (ROOT / "rules" / "data" / name).read_text(), name


# Arguments an op needs besides one float tensor `x`: (the call after the name, the tensor `x`).
OP_CALLS = {
    "bincount": ("(x)", "torch.tensor([0, 1, 1, 3])"),
    "masked_select": ("(x, x > 1)", "torch.tensor([0., 1., 0., 2.])"),
    # (time, batch, classes) log-probabilities, targets, input and target lengths
    "ctc_loss": ("(x.log_softmax(2), torch.tensor([[1, 2]]), [4], [2])", "torch.randn(4, 1, 3)"),
    "lstsq": ("(x, x[:, :2])", "torch.randn(4, 3)"),  # torch.linalg.lstsq(A, B)
}


def _user_module(calls: list[str], methods: list[str]) -> tuple[str, dict[int, str]]:
    """A user file with one compiled function per op name; returns (source, {line: name})."""
    lines = ["import torch", ""]
    where: dict[int, str] = {}
    names = [*calls, *(f"Tensor.{m}" for m in methods)]
    for i, name in enumerate(names):
        short = name.rsplit(".", 1)[-1]
        args = OP_CALLS.get(short, ("(x)", ""))[0]
        if name.startswith("Tensor."):  # `x.op(...)`: the call's first argument is the receiver
            rest = args[2:].lstrip(", ") if args.startswith("(x") else args[1:]
            call = f"x.{short}({rest}"
        else:
            call = f"{name}{args}"
        lines += ["", "@torch.compile(backend='eager')", f"def f{i}(x):", "    x = x + 1"]
        lines.append(f"    y = {call}")
        where[len(lines)] = name
        lines += ["    return y", ""]
    lines += ["", "def breakscan_examples():"]
    for i, name in enumerate(names):
        arg = OP_CALLS.get(name.rsplit(".", 1)[-1], ("", ""))[1] or "torch.tensor([0., 1., 0., 2.])"
        lines.append(f"    yield f{i}, ({arg},)")
    return "\n".join(lines) + "\n", where


@requires_torch
@pytest.mark.dynamic
def test_every_dynamic_output_shape_name_brk105_matches_breaks_under_dynamo(tmp_path):
    tag = json.loads(TORCH_OPS.read_text(encoding="utf-8"))["tags"]["dynamic_output_shape"]
    source, where = _user_module(tag["calls"], tag["tensor_methods"])
    (tmp_path / "ops.py").write_text(source, encoding="utf-8")
    result = subprocess.run([str(BREAKSCAN), "ops.py", "--format", "json", "--exit-zero"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    findings = json.loads(result.stdout)["findings"]
    confirmed = {f["line"] for f in findings if f["rule_id"] == "BRK105" and f["status"] == "confirmed"}
    assert {where[line] for line in confirmed} == set(where.values())
