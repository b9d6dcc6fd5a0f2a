"""Per-version rule data: a rule (or one of its patterns) outside its torch range is silent, its
graph-break ids are the version's, `--torch-version` predicts for any release without torch
installed, and a torch newer than every verified release is reported once.

Driven through the CLI as a user runs it (`python -m breakscan FILE --no-dynamic --format json`)
on a fresh project directory; the facts come from the rule files, which the version matrix
(bench/versions.py) confirms with real Dynamo on each release.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from breakscan.catalog import CatalogError, load_catalog, load_rule
from breakscan.config import Config
from breakscan.scan import active_rules, newest_verified, unverified_note

ROOT = Path(__file__).resolve().parent.parent

MODEL = textwrap.dedent("""\
    import random
    import time

    import torch


    def jitter(x):
        return x * random.random()


    @torch.compile
    def step(x):
        started = time.time()
        y = jitter(x)
        return y * random.gauss(0.0, 1.0) + started * 0
""")
RANDOM_LINE, TIME_LINE, GAUSS_LINE = 8, 13, 15

# Hides the installed torch from breakscan's process, as on a machine without it.
NO_TORCH = textwrap.dedent("""\
    import sys


    class _NoTorch:
        def find_spec(self, name, path=None, target=None):
            if name == "torch" or name.startswith("torch."):
                raise ModuleNotFoundError(name)
            return None


    sys.meta_path.insert(0, _NoTorch())
""")


def scan(tmp_path: Path, *args: str, hide_torch: bool = False) -> tuple[subprocess.CompletedProcess, dict]:
    (tmp_path / "model.py").write_text(MODEL, encoding="utf-8")
    path = str(ROOT)
    if hide_torch:
        (tmp_path / "site").mkdir(exist_ok=True)
        (tmp_path / "site" / "sitecustomize.py").write_text(NO_TORCH, encoding="utf-8")
        path = f"{tmp_path / 'site'}:{ROOT}"
    out = subprocess.run([sys.executable, "-m", "breakscan", "model.py", "--no-dynamic", "--no-cache",
                          "--format", "json", *args], cwd=tmp_path, capture_output=True, text=True,
                         env={"PYTHONPATH": path, "PATH": ""})
    assert out.returncode in (0, 1), out.stderr
    return out, json.loads(out.stdout)


def findings(data: dict) -> dict[tuple[str, int], list[str]]:
    return {(f["rule_id"], f["line"]): f["gb_ids"] for f in data["findings"]}


def test_random_random_is_flagged_before_2_14_only(tmp_path):
    _, old = scan(tmp_path, "--torch-version", "2.13")
    _, new = scan(tmp_path, "--torch-version", "2.14")
    assert ("BRK205", RANDOM_LINE) in findings(old)
    assert ("BRK205", RANDOM_LINE) not in findings(new)  # Dynamo traces random.random from 2.14
    assert ("BRK205", GAUSS_LINE) in findings(old) and ("BRK205", GAUSS_LINE) in findings(new)


def test_gb_ids_are_the_versions_own(tmp_path):
    assert findings(scan(tmp_path, "--torch-version", "2.13")[1])[("BRK204", TIME_LINE)] == ["GB0007"]
    assert findings(scan(tmp_path, "--torch-version", "2.14")[1])[("BRK204", TIME_LINE)] == ["GB0007"]
    assert findings(scan(tmp_path, "--torch-version", "2.15")[1])[("BRK204", TIME_LINE)] == ["GB9193"]


def test_torch_version_flag_predicts_without_torch_installed(tmp_path):
    out, data = scan(tmp_path, "--torch-version", "2.15", hide_torch=True)
    assert data["torch_version"] == "2.15"
    assert findings(data)[("BRK204", TIME_LINE)] == ["GB9193"]
    assert ("BRK205", RANDOM_LINE) not in findings(data)
    out, data = scan(tmp_path, "--torch-version", "2.13", hide_torch=True)
    assert ("BRK205", RANDOM_LINE) in findings(data)


def test_clean_code_on_2_14_exits_zero(tmp_path):
    (tmp_path / "model.py").write_text("", encoding="utf-8")
    code = "import random\n\nimport torch\n\n\n@torch.compile\ndef step(x):\n    return x * random.random()\n"
    (tmp_path / "clean.py").write_text(code, encoding="utf-8")
    for version, rc in (("2.14", 0), ("2.13", 1)):
        out = subprocess.run([sys.executable, "-m", "breakscan", "clean.py", "--no-dynamic", "--no-cache",
                              "--torch-version", version], cwd=tmp_path, capture_output=True, text=True,
                             env={"PYTHONPATH": str(ROOT), "PATH": ""})
        assert out.returncode == rc, (version, out.stdout, out.stderr)


def test_rule_outside_its_range_is_silent():
    catalog = load_catalog()
    ranged = catalog["BRK305"]  # nn.Buffer re-assignment: breaks from 2.5 on
    assert ranged.torch_versions == ">=2.5"
    assert ranged.for_torch((2, 4)) is None and ranged.for_torch((2, 5)) is not None
    ids = {r.id for r in active_rules(catalog, Config(), (2, 4))}
    assert "BRK305" not in ids and "BRK201" in ids


def test_newer_torch_than_verified_is_reported_once(tmp_path):
    newest = newest_verified(load_catalog())
    assert newest is not None
    newer = f"{newest[0]}.{newest[1] + 1}"
    out, _ = scan(tmp_path, "--torch-version", newer)
    assert out.stderr.count("newer than every version") == 1, out.stderr
    out, _ = scan(tmp_path, "--torch-version", f"{newest[0]}.{newest[1]}")
    assert "newer than every version" not in out.stderr
    assert unverified_note(load_catalog(), None) is None


def test_older_torch_than_verified_is_reported_once(tmp_path):
    oldest = min(tuple(map(int, v.split("."))) for r in load_catalog().values() for v in r.verified)
    older = f"{oldest[0]}.{oldest[1] - 1}"
    out, _ = scan(tmp_path, "--torch-version", older)
    assert out.stderr.count("older than every version") == 1, out.stderr


@pytest.mark.parametrize("rule", [r for r in load_catalog().values() if not r.id.startswith("BRK9")],
                         ids=lambda r: r.id)
def test_verified_releases_lie_in_the_rules_range(rule):
    for version in rule.verified:
        major, minor = map(int, version.split("."))
        assert rule.applies_to((major, minor)), f"{rule.id} verified on {version} outside {rule.torch_versions}"


def _rule_file(tmp_path: Path, extra: str) -> Path:
    text = (ROOT / "rules" / "BRK204.toml").read_text(encoding="utf-8")
    head, sep, tail = text.partition("[match]\n")
    path = tmp_path / "BRK204.toml"
    path.write_text(head + extra + "\n" + sep + tail, encoding="utf-8")
    return path


def test_catalog_rejects_overlapping_gb_ranges(tmp_path):
    path = _rule_file(tmp_path, '[[gb_ids_by_torch]]\ntorch = "<2.14"\ngb_ids = ["GB0059"]\n')
    with pytest.raises(CatalogError, match="ranges overlap at torch"):
        load_rule(path)


def test_catalog_rejects_a_range_for_a_pattern_it_does_not_match(tmp_path):
    text = (ROOT / "rules" / "BRK204.toml").read_text(encoding="utf-8")
    path = tmp_path / "BRK204.toml"
    path.write_text(text.replace('calls = ["time.*"]\n', 'calls = ["time.*"]\n\n[match.torch]\n"time.sleep" = "<2.14"\n'),
                    encoding="utf-8")
    with pytest.raises(CatalogError, match="time.sleep"):
        load_rule(path)
