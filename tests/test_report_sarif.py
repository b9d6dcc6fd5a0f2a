"""SARIF reporter: schema validity, locations, columns, fingerprints, rules and run facts."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from breakscan.catalog import load_catalog
from breakscan.findings import Finding, Frame, Kind, Report, Severity, Status
from breakscan.report import sarif

SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
NON_ASCII = 's = "héllo𝄞"; y = x.item()\n'


def render(report: Report, **kwargs) -> dict:
    doc = json.loads(sarif.render(report, load_catalog(), **kwargs))
    jsonschema.Draft4Validator(SCHEMA).validate(doc)  # the schema's `$schema` is draft-04
    return doc


def item_finding(path: Path, line: int = 2, **changes) -> Finding:
    base = Finding(
        rule_id="BRK102",
        kind=Kind.GRAPH_BREAK,
        path=str(path),
        line=line,
        column=5,
        end_column=13,
        message="`x.item()` reads a tensor's value into Python",
        gb_ids=("GB0124",),
        code="x.item()",
    )
    return base.replace(**changes)


@pytest.fixture
def model(tmp_path: Path) -> Path:
    path = tmp_path / "pkg" / "model.py"
    path.parent.mkdir()
    path.write_text("def f(x):\n    x.item()\n    return x\n", encoding="utf-8")
    return path


def test_log_validates_against_the_official_schema(tmp_path: Path, model: Path) -> None:
    findings = [
        item_finding(model, status=Status.CONFIRMED, stack=(Frame(str(model), 2, "f", 5),), chain=("M.forward", "f")),
        item_finding(model, line=3, rule_id="GB0170", status=Status.OBSERVED, gb_ids=("GB0170",)),
        item_finding(model, line=1, rule_id="BRK901", kind=Kind.ERROR, severity=Severity.ERROR),
        item_finding(model, line=3, status=Status.REFUTED),
    ]
    doc = render(Report(root=tmp_path, findings=findings, torch_version="2.13.0", dynamic_ran=True))
    assert doc["version"] == "2.1.0"
    assert len(doc["runs"][0]["results"]) == 4


def test_driver_names_breakscan_with_version_and_information_uri(tmp_path: Path, model: Path) -> None:
    driver = render(Report(root=tmp_path, findings=[item_finding(model)]))["runs"][0]["tool"]["driver"]
    assert driver["name"] == "breakscan"
    assert driver["version"]
    assert driver["informationUri"].startswith("https://")


def test_uri_is_relative_to_root_with_srcroot_base(tmp_path: Path, model: Path) -> None:
    run = render(Report(root=tmp_path, findings=[item_finding(model)]))["runs"][0]
    artifact = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": "pkg/model.py", "uriBaseId": "%SRCROOT%"}
    base = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    assert base.startswith("file://") and base.endswith("/")
    assert Path(tmp_path).resolve().as_uri() + "/" == base


def test_uri_outside_root_is_an_absolute_file_uri(tmp_path: Path, model: Path) -> None:
    root = tmp_path / "elsewhere"
    root.mkdir()
    result = render(Report(root=root, findings=[item_finding(model)]))["runs"][0]["results"][0]
    artifact = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact["uri"] == model.resolve().as_uri()
    assert "uriBaseId" not in artifact


def test_uri_with_space_is_percent_encoded(tmp_path: Path) -> None:
    path = tmp_path / "my model.py"
    path.write_text("x\nx.item()\n", encoding="utf-8")
    result = render(Report(root=tmp_path, findings=[item_finding(path)]))["runs"][0]["results"][0]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "my%20model.py"


def test_columns_are_utf16_code_units_on_a_non_ascii_line(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("import torch\n" + NON_ASCII, encoding="utf-8")
    line = NON_ASCII.rstrip("\n")
    start = line.index("x.item()") + 1  # 1-based code points
    finding = item_finding(path, column=start, end_column=start + len("x.item()"))
    region = render(Report(root=tmp_path, findings=[finding]))["runs"][0]["results"][0]["locations"][0][
        "physicalLocation"
    ]["region"]
    # 𝄞 is one code point but two UTF-16 code units; é is one of each.
    assert region["startLine"] == 2
    assert region["startColumn"] == start + 1
    assert region["endColumn"] == start + 1 + len("x.item()")


def test_utf16_column_counts_past_the_end_and_missing_lines() -> None:
    assert sarif.utf16_column("𝄞", 2) == 3
    assert sarif.utf16_column("ab", 5) == 5
    assert sarif.utf16_column(None, 7) == 7


def fingerprint_of(tmp_path: Path, path: Path, line: int) -> str:
    result = render(Report(root=tmp_path, findings=[item_finding(path, line=line)]))["runs"][0]["results"][0]
    return result["partialFingerprints"]["breakscan/v1"]


def test_fingerprint_is_stable_when_lines_are_inserted_above(tmp_path: Path, model: Path) -> None:
    before = fingerprint_of(tmp_path, model, 2)
    model.write_text("import os\n\n\n" + model.read_text(encoding="utf-8"), encoding="utf-8")
    assert fingerprint_of(tmp_path, model, 5) == before


def test_fingerprints_differ_for_the_same_text_twice_in_a_file(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("def f(x):\n    x.item()\n    x.item()\n", encoding="utf-8")
    report = Report(root=tmp_path, findings=[item_finding(path, line=2), item_finding(path, line=3)])
    prints = [r["partialFingerprints"]["breakscan/v1"] for r in render(report)["runs"][0]["results"]]
    assert len(set(prints)) == 2


def test_fingerprint_changes_with_the_line_text(tmp_path: Path, model: Path) -> None:
    before = fingerprint_of(tmp_path, model, 2)
    model.write_text("def f(x):\n    x.item() + 1\n    return x\n", encoding="utf-8")
    assert fingerprint_of(tmp_path, model, 2) != before


def test_no_security_severity_anywhere(tmp_path: Path, model: Path) -> None:
    text = sarif.render(Report(root=tmp_path, findings=[item_finding(model)]), load_catalog())
    assert "security-severity" not in text


def test_no_default_noise_in_the_output(tmp_path: Path, model: Path) -> None:
    text = sarif.render(Report(root=tmp_path, findings=[item_finding(model)]), load_catalog())
    for noise in ('"rank"', '"byteOffset"', '"charOffset"', '"nestingLevel": -1', "schema_uri", "rule_id"):
        assert noise not in text


def test_catalog_rule_has_full_descriptor_with_help(tmp_path: Path, model: Path) -> None:
    run = render(Report(root=tmp_path, findings=[item_finding(model)]))["runs"][0]
    (rule,) = run["tool"]["driver"]["rules"]
    assert rule["id"] == "BRK102" and rule["name"] == "tensor-item"
    assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
    assert len(rule["fullDescription"]["text"]) <= 1024
    assert "Fix" in rule["help"]["text"]
    assert "### Fix" in rule["help"]["markdown"] and "```python" in rule["help"]["markdown"]
    assert "gb0124.html" in rule["help"]["markdown"]
    assert rule["helpUri"].endswith("/gb/gb0124.html")
    assert rule["defaultConfiguration"]["level"] == "warning"
    assert rule["properties"]["tags"] and rule["properties"]["precision"] == "high"
    assert run["results"][0]["ruleIndex"] == 0


def test_gb_id_rule_is_described_from_the_registry(tmp_path: Path, model: Path) -> None:
    finding = item_finding(model, rule_id="GB0124", status=Status.OBSERVED)
    (rule,) = render(Report(root=tmp_path, findings=[finding]))["runs"][0]["tool"]["driver"]["rules"]
    assert rule["id"] == "GB0124"
    assert rule["helpUri"].endswith("/gb/gb0124.html")
    assert rule["help"]["text"] and rule["help"]["markdown"] and rule["fullDescription"]["text"]


def test_gb_descriptor_without_registry_entry_still_has_help() -> None:
    from breakscan.report.sarif_rules import gb_descriptor
    from breakscan.report.sarif_json import to_json

    rule = to_json(gb_descriptor("GB9999", None, "warning"))
    assert rule["shortDescription"]["text"] == "Dynamo graph break GB9999"
    assert rule["help"]["text"] and rule["fullDescription"]["text"]


def test_unknown_rule_id_gets_a_fallback_descriptor(tmp_path: Path, model: Path) -> None:
    finding = item_finding(model, rule_id="BRK999", kind=Kind.ERROR, severity=Severity.ERROR)
    (rule,) = render(Report(root=tmp_path, findings=[finding]))["runs"][0]["tool"]["driver"]["rules"]
    assert rule["id"] == "BRK999" and rule["help"]["text"]
    assert rule["defaultConfiguration"]["level"] == "error"


def test_result_carries_status_kind_and_gb_ids(tmp_path: Path, model: Path) -> None:
    finding = item_finding(model, status=Status.CONFIRMED)
    result = render(Report(root=tmp_path, findings=[finding]))["runs"][0]["results"][0]
    assert result["ruleId"] == "BRK102" and result["level"] == "warning"
    assert result["message"]["text"] == finding.message
    assert result["properties"]["breakscan/status"] == "confirmed"
    assert result["properties"]["breakscan/kind"] == "graph-break"
    assert result["properties"]["breakscan/gbIds"] == ["GB0124"]


def test_refuted_finding_is_kept_as_a_note(tmp_path: Path, model: Path) -> None:
    finding = item_finding(model, status=Status.REFUTED)
    (result,) = render(Report(root=tmp_path, findings=[finding]))["runs"][0]["results"]
    assert result["level"] == "note"
    assert result["properties"]["breakscan/status"] == "refuted"


def test_stack_becomes_code_flow_innermost_last_and_related_locations(tmp_path: Path, model: Path) -> None:
    outer = tmp_path / "pkg" / "outer.py"
    outer.write_text("def g(x):\n    return f(x)\n", encoding="utf-8")
    stack = (Frame(str(outer), 2, "g", 12), Frame(str(model), 2, "f", 5))
    result = render(Report(root=tmp_path, findings=[item_finding(model, stack=stack)]))["runs"][0]["results"][0]
    steps = result["codeFlows"][0]["threadFlows"][0]["locations"]
    uris = [s["location"]["physicalLocation"]["artifactLocation"]["uri"] for s in steps]
    assert uris == ["pkg/outer.py", "pkg/model.py"]
    (related,) = result["relatedLocations"]
    assert related["physicalLocation"]["artifactLocation"]["uri"] == "pkg/outer.py"
    assert related["physicalLocation"]["region"]["startLine"] == 2


def test_chain_without_stack_becomes_logical_code_flow(tmp_path: Path, model: Path) -> None:
    finding = item_finding(model, chain=("Model.forward", "f"))
    result = render(Report(root=tmp_path, findings=[finding]))["runs"][0]["results"][0]
    steps = result["codeFlows"][0]["threadFlows"][0]["locations"]
    names = [s["location"]["logicalLocations"][0]["fullyQualifiedName"] for s in steps[:-1]]
    assert names == ["Model.forward", "f"]
    assert "physicalLocation" in steps[-1]["location"]
    assert result["properties"]["breakscan/chain"] == ["Model.forward", "f"]


def test_no_code_flow_without_stack_or_chain(tmp_path: Path, model: Path) -> None:
    result = render(Report(root=tmp_path, findings=[item_finding(model)]))["runs"][0]["results"][0]
    assert "codeFlows" not in result and "relatedLocations" not in result


def test_run_has_automation_id_and_successful_invocation(tmp_path: Path, model: Path) -> None:
    run = render(Report(root=tmp_path, findings=[item_finding(model)]))["runs"][0]
    assert run["automationDetails"]["id"] == "breakscan/"
    assert run["invocations"][0]["executionSuccessful"] is True
    assert "toolExecutionNotifications" not in run["invocations"][0]


def test_error_finding_fails_the_invocation_with_a_notification(tmp_path: Path, model: Path) -> None:
    error = item_finding(model, rule_id="BRK901", kind=Kind.ERROR, severity=Severity.ERROR, message="cannot parse")
    run = render(Report(root=tmp_path, findings=[error, item_finding(model)]))["runs"][0]
    invocation = run["invocations"][0]
    assert invocation["executionSuccessful"] is False
    (note,) = invocation["toolExecutionNotifications"]
    assert note["level"] == "error" and "cannot parse" in note["message"]["text"]


def test_results_are_capped_keeping_the_most_severe(tmp_path: Path, model: Path) -> None:
    findings = [item_finding(model, line=n, severity=Severity.NOTE) for n in range(1, 4)]
    findings.append(item_finding(model, line=3, severity=Severity.ERROR, rule_id="BRK201"))
    run = render(Report(root=tmp_path, findings=findings), max_results=2)["runs"][0]
    assert len(run["results"]) == 2
    assert any(r["level"] == "error" for r in run["results"])
    notes = run["invocations"][0]["toolExecutionNotifications"]
    assert any("2 results left out" in n["message"]["text"] for n in notes)
    assert {r["id"] for r in run["tool"]["driver"]["rules"]} == {r["ruleId"] for r in run["results"]}


def test_missing_source_file_still_renders(tmp_path: Path) -> None:
    finding = item_finding(tmp_path / "gone.py", column=3)
    result = render(Report(root=tmp_path, findings=[finding]))["runs"][0]["results"][0]
    assert result["locations"][0]["physicalLocation"]["region"]["startColumn"] == 3
    assert result["partialFingerprints"]["breakscan/v1"]


def test_output_is_deterministic(tmp_path: Path, model: Path) -> None:
    findings = [item_finding(model, line=3), item_finding(model, line=2)]
    first = sarif.render(Report(root=tmp_path, findings=findings), load_catalog())
    assert sarif.render(Report(root=tmp_path, findings=list(reversed(findings))), load_catalog()) == first


def test_multi_line_span_has_end_line_and_a_backwards_end_is_dropped(tmp_path: Path, model: Path) -> None:
    spans = [item_finding(model, line=2, end_line=3, end_column=7), item_finding(model, line=3, end_line=2)]
    results = render(Report(root=tmp_path, findings=spans))["runs"][0]["results"]
    regions = [r["locations"][0]["physicalLocation"]["region"] for r in results]
    assert regions[0] == {"startLine": 2, "startColumn": 5, "endLine": 3, "endColumn": 7}
    assert regions[1] == {"startLine": 3, "startColumn": 5}
