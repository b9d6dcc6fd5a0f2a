"""[tool.breakscan] config, rule selection, torch versions: flags win, bad values exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from breakscan.catalog import load_catalog
from breakscan.config import Config, ConfigError, load_config, rule_selected
from tests.conftest import ROOT

MODEL = textwrap.dedent("""
    import time
    import torch

    @torch.compile
    def f(x):
        print("hi")
        t = time.time()
        return x * x.sum().item() + t
""")


def _scan(tmp_path, *args, pyproject: str | None = None):
    (tmp_path / "model.py").write_text(MODEL)
    if pyproject is not None:
        (tmp_path / "pyproject.toml").write_text(textwrap.dedent(pyproject))
    out = subprocess.run([sys.executable, "-m", "breakscan", "model.py", "--no-dynamic", "--no-cache",
                          "--format", "json", *args], cwd=tmp_path, capture_output=True, text=True,
                         env={"PYTHONPATH": str(ROOT), "PATH": ""})
    data = json.loads(out.stdout) if out.stdout.strip().startswith("{") else None
    return out, data


def _rules(data) -> dict[str, str]:
    return {f["rule_id"]: f["severity"] for f in data["findings"]}


def test_select_and_ignore_by_prefix_longest_match_wins():
    cfg = Config(select=["BRK2"], ignore=["BRK204"])
    assert rule_selected("BRK201", cfg) and not rule_selected("BRK204", cfg)
    assert not rule_selected("BRK102", cfg)
    assert rule_selected("BRK204", Config(select=["BRK204"], ignore=["BRK2"]))


def test_config_table_selects_sets_severity_and_flags_win(tmp_path):
    out, data = _scan(tmp_path, pyproject="""
        [tool.breakscan]
        ignore = ["BRK204"]
        severity = { BRK102 = "error" }
    """)
    assert _rules(data) == {"BRK201": "warning", "BRK102": "error"}
    out, data = _scan(tmp_path, "--select", "BRK204")
    assert _rules(data) == {"BRK204": "warning"}


def test_exclude_globs_and_gitignore(tmp_path):
    (tmp_path / "gen").mkdir()
    (tmp_path / "gen" / "a.py").write_text(MODEL)
    (tmp_path / "vendored").mkdir()
    (tmp_path / "vendored" / "b.py").write_text(MODEL)
    (tmp_path / ".gitignore").write_text("vendored/\n")
    (tmp_path / "pyproject.toml").write_text('[tool.breakscan]\nexclude = ["gen/"]\n')
    (tmp_path / "model.py").write_text(MODEL)
    out = subprocess.run([sys.executable, "-m", "breakscan", ".", "--no-dynamic", "--no-cache", "--format", "json",
                          "--root", str(tmp_path)], cwd=tmp_path, capture_output=True, text=True,
                         env={"PYTHONPATH": str(ROOT), "PATH": ""})
    paths = {f["path"] for f in json.loads(out.stdout)["findings"]}
    assert paths == {"model.py"}


@pytest.mark.parametrize("table, message", [
    ('select = ["BRK999"]', "unknown rule id"),
    ('regions = "everything"', "regions must be one of"),
    ('severity = { BRK102 = "fatal" }', "severity of BRK102"),
    ('colour = "red"', "unknown [tool.breakscan] key"),
    ('timeout = "long"', "timeout must be"),
])
def test_bad_config_is_a_clear_error_with_exit_2(tmp_path, table, message):
    out, data = _scan(tmp_path, pyproject=f"[tool.breakscan]\n{table}\n")
    assert out.returncode == 2 and data is None
    assert message in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_unknown_rule_on_the_command_line_exits_2(tmp_path):
    out, _ = _scan(tmp_path, "--ignore", "NOPE1")
    assert out.returncode == 2 and "unknown rule id" in out.stderr


def test_rules_fire_only_on_torch_versions_where_they_break(tmp_path):
    catalog = load_catalog()
    ranged = [r for r in catalog.values() if r.torch_versions not in (">=2.0", "") and r.match]
    assert ranged, "the catalog states version ranges"
    rule = catalog["BRK201"]  # print: breaks from 2.1 on per its file
    assert rule.applies_to((2, 13)) and not rule.applies_to((1, 13))
    _, data = _scan(tmp_path, "--torch-version", "1.13")
    assert "BRK201" not in _rules(data)
    _, data = _scan(tmp_path, "--torch-version", "2.13")
    assert "BRK201" in _rules(data)


def test_load_config_reads_entries_and_regions(tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_text('[tool.breakscan]\nregions = "explicit"\nentries = ["m.py:examples"]\njobs = 1\n')
    cfg = load_config(path)
    assert cfg.regions == "explicit" and cfg.entries == ["m.py:examples"] and cfg.jobs == 1
    path.write_text('[tool.breakscan]\njobs = "two"\n')
    with pytest.raises(ConfigError):
        load_config(path)
