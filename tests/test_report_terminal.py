"""Terminal reporter: layout, code frames, links, summary, and escaping of scanned text."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.cells import cell_len
from rich.console import Console

from breakscan.catalog import load_catalog
from breakscan.findings import EntryReport, Finding, Frame, Kind, Report, Status
from breakscan.report import terminal

SOURCE = "import torch\n\ndef f(x):\n    y = x.item()\n    return y\n"


@pytest.fixture
def model(tmp_path: Path) -> Path:
    path = tmp_path / "pkg" / "model.py"
    path.parent.mkdir()
    path.write_text(SOURCE, encoding="utf-8")
    return path


def item_finding(path: Path, **changes) -> Finding:
    base = Finding(
        rule_id="BRK102",
        kind=Kind.GRAPH_BREAK,
        path=str(path),
        line=4,
        column=9,
        end_column=17,
        message="`x.item()` reads a tensor's value into Python",
        gb_ids=("GB0124",),
    )
    return base.replace(**changes)


def render(report: Report) -> str:
    return terminal.render(report, load_catalog())


def test_headline_has_relative_location_rule_status_and_message(tmp_path: Path, model: Path) -> None:
    out = render(Report(root=tmp_path, findings=[item_finding(model, status=Status.CONFIRMED)]))
    assert "pkg/model.py:4:9 BRK102 [confirmed] `x.item()` reads a tensor's value into Python" in out


def test_code_frame_marks_the_span_with_carets(tmp_path: Path, model: Path) -> None:
    lines = render(Report(root=tmp_path, findings=[item_finding(model)])).splitlines()
    source_row = next(n for n, line in enumerate(lines) if line.startswith("> 4 |"))
    assert lines[source_row] == "> 4 |     y = x.item()"
    caret_row = lines[source_row + 1]
    assert caret_row.index("^") == lines[source_row].index("x.item()")
    assert caret_row.count("^") == len("x.item()")
    assert any(line.startswith("  3 | def f(x):") for line in lines)


def test_caret_aligns_after_wide_and_non_ascii_characters(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text('s = "héllo𝄞日本"; y = x.item()\n', encoding="utf-8")
    column = path.read_text(encoding="utf-8").index("x.item()") + 1
    out = render(Report(root=tmp_path, findings=[item_finding(path, line=1, column=column, end_column=column + 8)]))
    lines = out.splitlines()
    src = next(line for line in lines if line.startswith("> 1 |"))
    carets = lines[lines.index(src) + 1]
    assert cell_len(carets[: carets.index("^")]) == cell_len(src[: src.index("x.item()")])


def test_fix_and_graph_break_link_are_shown(tmp_path: Path, model: Path) -> None:
    out = render(Report(root=tmp_path, findings=[item_finding(model, fix="use the 0-d tensor")]))
    assert "fix: use the 0-d tensor" in out
    assert "GB0124 https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0124.html" in out


def test_rule_fix_is_used_when_the_finding_has_none(tmp_path: Path, model: Path) -> None:
    out = render(Report(root=tmp_path, findings=[item_finding(model)]))
    assert "fix: Keep the value a tensor" in out


def test_dynamic_finding_shows_stack_innermost_last_and_chain(tmp_path: Path, model: Path) -> None:
    stack = (Frame(str(tmp_path / "pkg" / "outer.py"), 10, "forward"), Frame(str(model), 4, "f"))
    finding = item_finding(model, status=Status.OBSERVED, stack=stack, chain=("Model.forward", "f"))
    out = render(Report(root=tmp_path, findings=[finding]))
    assert "compile region: Model.forward -> f" in out
    trace = out[out.index("user stack (innermost last):") :]
    assert trace.index("pkg/outer.py:10 in forward") < trace.index("pkg/model.py:4 in f")


def test_missing_source_file_prints_without_a_frame(tmp_path: Path) -> None:
    out = render(Report(root=tmp_path, findings=[item_finding(tmp_path / "gone.py")]))
    assert "gone.py:4:9 BRK102" in out and "|" not in out.split("By status")[0]


def test_refuted_is_hidden_unless_asked_for(tmp_path: Path, model: Path) -> None:
    finding = item_finding(model, status=Status.REFUTED, message="refuted prediction")
    assert "refuted prediction" not in render(Report(root=tmp_path, findings=[finding]))
    assert "refuted (hidden)" in render(Report(root=tmp_path, findings=[finding]))
    assert "refuted prediction" in render(Report(root=tmp_path, findings=[finding], show_refuted=True))


def test_ansi_and_osc8_in_source_and_message_are_neutralised(tmp_path: Path) -> None:
    path = tmp_path / "evil.py"
    evil = "\x1b[31mred\x1b[0m \x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\ \u202e"
    path.write_text(f'y = x.item()  # {evil}\n', encoding="utf-8")
    finding = item_finding(path, line=1, column=5, end_column=13, message=f"msg {evil}", fix=evil)
    out = render(Report(root=tmp_path, findings=[finding]))
    assert "\x1b" not in out and "\u202e" not in out
    assert "\\x1b[31mred" in out and "\\u202e" in out


def test_rich_markup_in_user_text_is_printed_literally(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("y = x.item()  # [bold red]boom[/] :smile:\n", encoding="utf-8")
    finding = item_finding(path, line=1, column=5, end_column=13, message="[link=https://evil]x[/link] [bold]")
    out = render(Report(root=tmp_path, findings=[finding]))
    assert "[bold red]boom[/] :smile:" in out
    assert "[link=https://evil]x[/link] [bold]" in out


def test_colour_console_does_not_pass_user_escapes_through(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("y = x.item()  # \x1b]8;;https://evil.example\x1b\\\n", encoding="utf-8")
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, color_system="truecolor", width=100)
    finding = item_finding(path, line=1, column=5, end_column=13)
    terminal.print_report(Report(root=tmp_path, findings=[finding]), load_catalog(), console)
    out = buffer.getvalue()
    assert "\x1b[" in out  # our own styling is there
    assert "evil.example" in out and "\x1b]8;;https://evil.example" not in out


def test_summary_counts_by_status_and_rule(tmp_path: Path, model: Path) -> None:
    findings = [item_finding(model, status=Status.CONFIRMED), item_finding(model, line=5, status=Status.PREDICTED)]
    out = render(Report(root=tmp_path, findings=findings, files_scanned=7))
    assert "2 finding(s) in 1 file(s); 7 file(s) scanned." in out
    assert "By status" in out and "By rule" in out
    rule_row = next(line for line in out.splitlines() if "BRK102" in line and "turns a tensor" in line)
    assert "2" in rule_row


def test_entries_are_listed_worst_first(tmp_path: Path, model: Path) -> None:
    entries = [
        EntryReport("pkg/model.py:small", graphs=1, ops_per_graph=[4], fullgraph_ok=True),
        EntryReport("pkg/model.py:split", graphs=3, ops_per_graph=[2, 1, 5], graph_breaks=2, fullgraph_ok=False),
    ]
    out = render(Report(root=tmp_path, findings=[], entries=entries, dynamic_ran=True, torch_version="2.13.0"))
    assert out.index("pkg/model.py:split") < out.index("pkg/model.py:small")
    assert "2, 1, 5" in out
    lines = out.splitlines()
    split_at, small_at = lines.index("pkg/model.py:split"), lines.index("pkg/model.py:small")
    assert lines[split_at + 1] == "  0 call(s), 3 graph(s) (ops per graph: 2, 1, 5), 2 break(s), 0 recompile(s)"
    assert lines[split_at + 2] == "  fullgraph: no" and lines[small_at + 2] == "  fullgraph: ok"


def test_plain_output_has_no_trailing_spaces(tmp_path: Path, model: Path) -> None:
    out = render(Report(root=tmp_path, findings=[item_finding(model)]))
    assert all(line == line.rstrip() for line in out.splitlines())


def test_empty_report_says_so_without_a_rule_table(tmp_path: Path) -> None:
    out = render(Report(root=tmp_path, findings=[], files_scanned=3))
    assert "No findings; 3 file(s) scanned." in out and "By rule" not in out


def test_quiet_prints_findings_without_the_summary(tmp_path: Path, model: Path) -> None:
    buffer = io.StringIO()
    console = Console(file=buffer, color_system=None, width=100)
    report = Report(root=tmp_path, findings=[item_finding(model)])
    terminal.print_report(report, load_catalog(), console, quiet=True)
    assert "BRK102" in buffer.getvalue() and "By status" not in buffer.getvalue()
