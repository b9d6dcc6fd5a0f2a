"""The dynamic pass against real Dynamo (never mocked): one child process per sample run.

Sample files live in tests/dyn_samples/project (the project root); tests/dyn_samples/extlib
stands in for a third-party library outside it. Each child costs ~4-8 s (torch import and
Dynamo set-up), so the samples group many entries and runs are shared per module.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from breakscan.dynamic.runner import DynamicResult, run_dynamic
from breakscan.findings import Finding, Kind, Severity, Status

pytestmark = [
    pytest.mark.dynamic,
    pytest.mark.versions,
    pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed (dynamic extra)"),
]

PROJECT = Path(__file__).resolve().parent / "dyn_samples" / "project"
BREAKS = PROJECT / "breaks.py"
CRASHES = PROJECT / "crashes.py"


def line_of(path: Path, text: str) -> int:
    """1-based line of the first line containing `text` (keeps tests independent of edits)."""
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if text in line:
            return i
    raise AssertionError(f"{text!r} not in {path}")


def of_entry(result: DynamicResult, func: str) -> list[Finding]:
    return [f for f in result.findings if f.entry.endswith(f":{func}")]


@pytest.fixture(scope="module")
def breaks() -> DynamicResult:
    return run_dynamic(BREAKS, project_root=PROJECT, timeout=240)


@pytest.fixture(scope="module")
def recompiles() -> DynamicResult:
    return run_dynamic(PROJECT / "recompiles.py", project_root=PROJECT, timeout=240)


def test_item_break_gb0124_at_line_with_stack(breaks: DynamicResult) -> None:
    [f] = of_entry(breaks, "item_break")
    assert f.rule_id == "GB0124" and f.gb_ids == ("GB0124",)
    assert f.kind is Kind.GRAPH_BREAK and f.status is Status.OBSERVED
    assert (f.path, f.line) == (str(BREAKS), line_of(BREAKS, "s = y.sum().item()"))
    # Column of `y.sum().item()` (1-based code points), from the traceback's carets; before 2.13
    # Dynamo's carets mark the whole statement `s = y.sum().item()`.
    import torch

    marked = "y.sum().item()" if tuple(map(int, torch.__version__.split(".")[:2])) >= (2, 13) else "s = y"
    assert f.column == line_of_col(BREAKS, f.line, marked)
    assert "Tensor.item()" in f.message and f.explanation and f.hints
    assert [(fr.path, fr.line, fr.function) for fr in f.stack] == [(str(BREAKS), f.line, "item_break")]


def line_of_col(path: Path, line: int, text: str) -> int:
    return path.read_text(encoding="utf-8").splitlines()[line - 1].index(text) + 1


def test_print_at_top_of_function_gb0059(breaks: DynamicResult) -> None:
    [f] = of_entry(breaks, "print_top")
    assert f.rule_id == "GB0059"
    assert f.line == line_of(BREAKS, 'print("entering print_top")')
    # explain() counts graphs, not breaks: it sees one graph and no break here.
    [entry] = [e for e in breaks.entries if e.name.endswith(":print_top")]
    assert entry.graphs == 1 and entry.graph_breaks == 1
    assert entry.fullgraph_ok is False and "GB0059" in entry.fullgraph_error


def test_if_on_tensor_gb0170(breaks: DynamicResult) -> None:
    [f] = of_entry(breaks, "if_tensor")
    assert f.rule_id == "GB0170" and f.line == line_of(BREAKS, "if y.sum() > 0:")
    assert f.message.startswith("Data-dependent branching")


def test_data_ptr_is_frame_fallback(breaks: DynamicResult) -> None:
    [f] = of_entry(breaks, "data_ptr_fallback")
    assert f.kind is Kind.FRAME_FALLBACK
    assert f.line == line_of(BREAKS, "x.data_ptr()")
    assert f.gb_ids and f.rule_id == f.gb_ids[0]


def test_clean_function_reports_nothing(breaks: DynamicResult) -> None:
    assert of_entry(breaks, "clean") == []
    [entry] = [e for e in breaks.entries if e.name.endswith(":clean")]
    assert entry.graphs == 1 and entry.graph_breaks == 0 and entry.fullgraph_ok is True
    assert entry.ops_per_graph and entry.ops_per_graph[0] >= 2


def test_explain_graph_counts(breaks: DynamicResult) -> None:
    by_name = {e.name.split(":")[-1]: e for e in breaks.entries}
    assert by_name["item_break"].graphs == 2
    assert by_name["if_tensor"].graphs == 2
    assert by_name["item_break"].fullgraph_ok is True  # fullgraph=True captures scalars: not the oracle
    assert by_name["shapes"].calls == 2


def test_user_exception_is_brk902_and_other_entries_kept(breaks: DynamicResult) -> None:
    [err] = [f for f in breaks.findings if f.rule_id == "BRK902"]
    assert err.kind is Kind.ERROR and err.severity is Severity.ERROR
    assert err.entry.endswith(":raises") and "ValueError" in err.message
    assert err.line == line_of(BREAKS, 'raise ValueError("bad input in raises")')
    # The error is the story there: no "Observed exception" break on the raise line.
    assert [f.rule_id for f in of_entry(breaks, "raises")] == ["BRK902"]
    later = {e.name.split(":")[-1] for e in breaks.entries}
    assert {"calls_library", "Gate"} <= later


def test_sys_exit_in_user_code_is_brk903_and_run_continues(breaks: DynamicResult) -> None:
    [err] = [f for f in breaks.findings if f.rule_id == "BRK903"]
    assert err.entry.endswith(":exits") and "sys.exit(3)" in err.message
    assert err.line == line_of(BREAKS, "sys.exit(3)")
    assert any(f.entry.endswith(":Gate") for f in breaks.findings)


def test_break_inside_library_located_at_project_line(breaks: DynamicResult) -> None:
    [f] = of_entry(breaks, "calls_library")
    assert f.rule_id == "GB0124"
    assert (f.path, f.line) == (str(BREAKS), line_of(BREAKS, "return extlib_helpers.scale_by_max(y)"))
    assert [Path(fr.path).name for fr in f.stack] == ["breaks.py", "extlib_helpers.py"]


def test_shape_recompile_with_guard_text(breaks: DynamicResult) -> None:
    [f] = of_entry(breaks, "shapes")
    assert f.kind is Kind.RECOMPILE
    assert "tensor 'x' size mismatch at index 0. expected 2, actual 3" in f.message
    assert f.line == line_of(BREAKS, "def shapes(x):")
    assert f.extra["guard_class"] == "shape" and "mark_dynamic" in f.fix
    [entry] = [e for e in breaks.entries if e.name.endswith(":shapes")]
    assert entry.recompiles == 1


def test_module_training_recompile(breaks: DynamicResult) -> None:
    [f] = of_entry(breaks, "Gate")
    assert f.kind is Kind.RECOMPILE and "self.training == True" in f.message
    assert f.line == line_of(BREAKS, "if self.training:")
    assert f.extra["guard_class"] == "module_training"


def test_traced_lines_exclude_breaks(breaks: DynamicResult) -> None:
    lines = breaks.traced_lines[str(BREAKS)]
    assert line_of(BREAKS, "y = x * 2") in lines
    assert line_of(BREAKS, "s = y.sum().item()") not in lines
    assert breaks.device == "cpu" and breaks.torch_version.startswith("2.")


def test_value_guard_and_recompile_limit(recompiles: DynamicResult) -> None:
    src = PROJECT / "recompiles.py"
    scaled = [f for f in recompiles.findings if f.entry.endswith(":scaled")]
    assert [(f.line, f.extra["guard_class"]) for f in scaled] == [(line_of(src, "if flag:"), "scalar_value")]
    assert "flag == True" in scaled[0].message
    limit = [f for f in recompiles.findings if f.rule_id == "BRK904"]
    assert len(limit) == 1 and limit[0].kind is Kind.ERROR and "recompile limit (8)" in limit[0].message
    repeated = [f for f in recompiles.findings if f.entry.endswith(":by_mode") and f.kind is Kind.RECOMPILE]
    assert len(repeated) == 1 and repeated[0].extra["count"] == 8
    assert repeated[0].line == line_of(src, 'if mode == "double":')


def test_segfault_is_brk903_keeping_earlier_entries() -> None:
    result = run_dynamic(CRASHES, project_root=PROJECT, entry="crashes.py:examples_segfault", timeout=240)
    crash = [f for f in result.findings if f.rule_id == "BRK903"]
    assert len(crash) == 1 and "SIGSEGV" in crash[0].message
    assert crash[0].line == line_of(CRASHES, "ctypes.string_at(0)")  # from faulthandler's dump
    assert any(f.rule_id == "GB0124" and f.entry.endswith(":item_first") for f in result.findings)


def test_os_exit_is_brk903() -> None:
    result = run_dynamic(CRASHES, project_root=PROJECT, entry="crashes.py:examples_exit", timeout=240)
    [crash] = [f for f in result.findings if f.rule_id == "BRK903"]
    assert "exited with status 3" in crash.message and crash.entry.endswith(":hard_exit")
    assert any(f.rule_id == "GB0124" for f in result.findings)


def test_hang_times_out_as_brk903() -> None:
    result = run_dynamic(CRASHES, project_root=PROJECT, entry="crashes.py:examples_hang", timeout=12)
    [crash] = [f for f in result.findings if f.rule_id == "BRK903"]
    assert "timed out after 12 s" in crash.message and crash.extra["timed_out"] is True


def test_import_error_is_brk902(tmp_path: Path) -> None:
    bad = tmp_path / "bad_import.py"
    bad.write_text("import torch\n\nraise RuntimeError('boom at import')\n", encoding="utf-8")
    result = run_dynamic(bad, project_root=tmp_path, timeout=240)
    [err] = result.findings
    assert err.rule_id == "BRK902" and err.extra["phase"] == "import"
    assert (err.path, err.line) == (str(bad), 3) and "boom at import" in err.message
    assert result.entries == []
