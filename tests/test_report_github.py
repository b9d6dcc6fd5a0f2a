"""GitHub workflow-command annotations: one per shown finding, escaped as the runner expects."""

from __future__ import annotations

from pathlib import Path

from breakscan.catalog import load_catalog
from breakscan.findings import Finding, Kind, Report, Severity, Status
from breakscan.report import github


def finding(path: Path, **changes) -> Finding:
    base = Finding(
        rule_id="BRK102",
        kind=Kind.GRAPH_BREAK,
        path=str(path),
        line=4,
        column=9,
        end_line=4,
        end_column=17,
        message="`x.item()` breaks",
    )
    return base.replace(**changes)


def test_warning_annotation_has_location_and_title(tmp_path: Path) -> None:
    out = github.render(Report(root=tmp_path, findings=[finding(tmp_path / "pkg" / "m.py")]), load_catalog())
    assert out == (
        "::warning file=pkg/m.py,line=4,col=9,endLine=4,endColumn=17,"
        "title=BRK102%3A `.item()` turns a tensor into a Python scalar::`x.item()` breaks [predicted]\n"
    )


def test_command_follows_severity(tmp_path: Path) -> None:
    findings = [
        finding(tmp_path / "a.py", severity=Severity.ERROR),
        finding(tmp_path / "b.py", severity=Severity.WARNING),
        finding(tmp_path / "c.py", severity=Severity.NOTE),
    ]
    lines = github.render(Report(root=tmp_path, findings=findings), load_catalog()).splitlines()
    assert [line.split(" ", 1)[0] for line in lines] == ["::error", "::warning", "::notice"]


def test_data_and_properties_are_escaped() -> None:
    assert github.escape_data("100% done\r\nnext: a,b") == "100%25 done%0D%0Anext: a,b"
    assert github.escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"


def test_message_newlines_and_path_commas_cannot_forge_commands(tmp_path: Path) -> None:
    evil = finding(tmp_path / "a,b:c.py", message="x\n::error file=x.py::forged", fix="f1\nf2")
    (line,) = github.render(Report(root=tmp_path, findings=[evil]), load_catalog()).splitlines()
    assert "file=a%2Cb%3Ac.py," in line
    assert line.endswith("::x%0A::error file=x.py::forged [predicted]%0AFix: f1 f2")


def test_refuted_findings_are_left_out_unless_asked_for(tmp_path: Path) -> None:
    report = Report(root=tmp_path, findings=[finding(tmp_path / "a.py", status=Status.REFUTED)])
    assert github.render(report, load_catalog()) == ""
    report.show_refuted = True
    assert "[refuted]" in github.render(report, load_catalog())


def test_gb_rule_title_comes_from_the_registry_or_a_fallback(tmp_path: Path) -> None:
    report = Report(root=tmp_path, findings=[finding(tmp_path / "a.py", rule_id="GB9999")])
    assert "title=GB9999%3A Dynamo graph break GB9999::" in github.render(report, load_catalog())


def test_a_finding_of_a_distributed_run_names_its_ranks(tmp_path: Path) -> None:
    # `breakscan run --nproc-per-node`: merged findings carry the ranks that saw them (multirank)
    f = finding(tmp_path / "train.py", status=Status.OBSERVED, extra={"ranks": [0, 1]})
    out = github.render(Report(root=tmp_path, findings=[f]), load_catalog())
    assert out.endswith("::`x.item()` breaks [observed] [ranks 0,1]\n")
