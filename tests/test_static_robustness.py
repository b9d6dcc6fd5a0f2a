"""Bad input never stops the scan; suppressions work as ruff users expect."""

from __future__ import annotations

from breakscan.catalog import load_catalog
from breakscan.static.engine import scan_files
from tests.conftest import rule_lines, static_findings, write_files


def test_unparsable_file_is_an_error_finding_and_others_are_scanned(tmp_path):
    paths = write_files(tmp_path, {
        "broken.py": "def f(:\n    pass\n",
        "good.py": """
            import torch

            @torch.compile
            def f(x):
                return x.item()
        """,
    })
    findings = scan_files(paths, list(load_catalog().values())).findings
    by_rule = {f.rule_id: f for f in findings}
    assert by_rule["BRK901"].kind.value == "error"
    assert by_rule["BRK901"].path.endswith("broken.py")
    assert by_rule["BRK901"].line == 1
    assert ("BRK102", 6) in rule_lines(findings)


def test_non_utf8_and_nul_files_are_reported_not_raised(tmp_path):
    (tmp_path / "latin.py").write_bytes(b"x = '\xe9'\n")
    (tmp_path / "nul.py").write_bytes(b"x = 1\x00\n")
    findings = scan_files([tmp_path / "latin.py", tmp_path / "nul.py"], list(load_catalog().values())).findings
    assert {f.rule_id for f in findings} <= {"BRK901"}
    assert all(f.message for f in findings)


def test_suppression_comments(tmp_path):
    findings = static_findings(tmp_path, """
        import torch

        @torch.compile
        def f(x):
            a = x.item()  # breakscan: ignore[BRK102]
            b = x.item()  # noqa: BRK102
            c = x.item()  # breakscan: ignore
            d = x.item()  # breakscan: ignore[BRK101]
            e = x.item()  # noqa: BRK1
            return a + b + c + d + e
    """)
    assert rule_lines(findings) == {("BRK102", 9)}
