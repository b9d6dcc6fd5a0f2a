"""`--fix` / `--diff`: each rewrite, verified by real Dynamo to remove the breaks and by eager
runs to keep the numbers; formatting kept; --diff writes nothing; --fix is idempotent; unsafe
rewrites need --unsafe-fixes.

Each fixture `fixtures/fix/NAME.py` has its expected rewrite beside it, `NAME.fixed.py`
(TorchFix's golden-file style): the rewrite must produce it byte for byte, and both files'
`breakscan_examples()` are run under Dynamo and eagerly.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from breakscan.catalog import load_catalog
from breakscan.cli import app
from breakscan.config import Config
from breakscan.fix import source
from breakscan.fix.rewrites import REWRITES
from breakscan.fix.run import fix_paths
from tests.conftest import FIXTURES, ROOT, requires_torch

FIX_DIR = FIXTURES / "fix"
# fixture -> (the rules whose rewrites it exercises, whether they are unsafe)
CASES = {
    "print_guard": ({"BRK201"}, False),
    "logging_guard": ({"BRK202"}, False),
    "warnings_guard": ({"BRK203"}, False),
    "stream_guard": ({"BRK211"}, False),
    "graph_break_delete": ({"BRK209"}, False),
    "where_branch": ({"BRK101"}, True),
    "item_tensor": ({"BRK102"}, True),
    "scalar_tensor": ({"BRK104"}, True),
}


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("BREAKSCAN_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


def fixed_copy(tmp_path: Path, name: str, unsafe: bool) -> tuple[Path, list]:
    """Copy fixture NAME to tmp_path, fix it there; the path and the findings fixed."""
    target = tmp_path / f"{name}.py"
    shutil.copyfile(FIX_DIR / f"{name}.py", target)
    outcome = fix_paths([target], Config(dynamic=False), load_catalog(), root=tmp_path, unsafe=unsafe)
    return target, outcome.fixed


def cli(*args: str):
    return CliRunner().invoke(app, list(args))


# the catalog ------------------------------------------------------------------------------------
def test_every_fixable_rule_names_a_rewrite_and_has_a_verified_fixture():
    catalog = load_catalog()
    fixable = {rid: r.autofix for rid, r in catalog.items() if r.autofix}
    assert len(fixable) >= 8
    assert all(fix.rewrite in REWRITES for fix in fixable.values())
    covered = {rule for rules, _ in CASES.values() for rule in rules}
    assert covered == set(fixable)
    for rules, unsafe in CASES.values():
        assert {fixable[r].safety for r in rules} == {"unsafe" if unsafe else "safe"}


# the rewrites, byte for byte ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(CASES))
def test_fix_produces_the_golden_file(tmp_path, name):
    rules, unsafe = CASES[name]
    target, fixed = fixed_copy(tmp_path, name, unsafe)
    assert {f.rule_id for f in fixed} == rules
    assert target.read_text(encoding="utf-8") == (FIX_DIR / f"{name}.fixed.py").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(n for n, (_, unsafe) in CASES.items() if unsafe))
def test_unsafe_rewrites_need_unsafe_fixes(tmp_path, name):
    target, fixed = fixed_copy(tmp_path, name, unsafe=False)
    assert fixed == []
    assert target.read_bytes() == (FIX_DIR / f"{name}.py").read_bytes()


# verification under real Dynamo -----------------------------------------------------------------------
def _load(path: Path):
    spec = importlib.util.spec_from_file_location(f"fixcase_{path.stem.replace('.', '_')}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def eager_outputs(path: Path) -> list:
    """Every example's output, computed eagerly (torch.compile turned off), seeded."""
    import torch

    module = _load(path)
    outputs = []
    with torch._dynamo.config.patch(disable=True), torch.no_grad():
        torch.manual_seed(0)
        for example in module.breakscan_examples():
            fn, args, kwargs = (*example, {}) if len(example) == 2 else example
            outputs.append(fn(*args, **kwargs))
    return outputs


@pytest.fixture(scope="module")
def dynamo_counts():
    """(graph breaks, recompiles, graphs) per fixture and per golden file, all in one child."""
    from breakscan.dynamic.runner import run_dynamic_many

    paths = [FIX_DIR / f"{name}{suffix}.py" for name in sorted(CASES) for suffix in ("", ".fixed")]
    results = run_dynamic_many([(p, None) for p in paths], project_root=ROOT, device="cpu", timeout=240)
    counts = {}
    for path, result in zip(paths, results):
        assert result.entries and not any(e.error for e in result.entries), (path, result.findings)
        counts[path.name] = (sum(e.graph_breaks for e in result.entries),
                             sum(e.recompiles for e in result.entries),
                             sum(e.graphs for e in result.entries))
    return counts


@requires_torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_rewrite_removes_the_breaks_under_dynamo(dynamo_counts, name):
    breaks, recompiles, graphs = dynamo_counts[f"{name}.py"]
    fixed_breaks, fixed_recompiles, fixed_graphs = dynamo_counts[f"{name}.fixed.py"]
    assert breaks > 0 and recompiles == 0
    assert (fixed_breaks, fixed_recompiles) == (0, 0)
    assert fixed_graphs == 1 <= graphs  # (a break next to an empty graph adds no graph)


@requires_torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_rewrite_keeps_eager_outputs(name):
    import torch

    before = eager_outputs(FIX_DIR / f"{name}.py")
    after = eager_outputs(FIX_DIR / f"{name}.fixed.py")
    assert len(before) == len(after) > 0
    for a, b in zip(before, after):
        torch.testing.assert_close(b, a)


# formatting, --diff, idempotence ---------------------------------------------------------------------------
EXPECTED_DIFF = '''\
--- a/print_guard.py
+++ b/print_guard.py
@@ -12,7 +12,8 @@
     def forward(self, x):
         h = self.proj(x).relu()
         # shape check while debugging
-        print("block out", h.shape)  # keep this comment
+        if not torch.compiler.is_compiling():
+            print("block out", h.shape)  # keep this comment
         return h + x
 
 
'''


def test_diff_prints_the_exact_rewrite_and_writes_nothing(tmp_path):
    shutil.copyfile(FIX_DIR / "print_guard.py", tmp_path / "print_guard.py")
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in tmp_path.iterdir()}
    result = cli("check", str(tmp_path), "--diff", "--root", str(tmp_path))
    assert result.exit_code == 1, result.output
    assert result.stdout == EXPECTED_DIFF
    assert {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in tmp_path.iterdir()} == before


def test_diff_exits_zero_when_there_is_nothing_to_fix(tmp_path):
    shutil.copyfile(FIX_DIR / "print_guard.fixed.py", tmp_path / "model.py")
    result = cli("check", str(tmp_path), "--diff", "--root", str(tmp_path))
    assert result.exit_code == 0 and result.stdout == ""


def test_diff_shows_what_several_fix_rounds_do(tmp_path):
    """`int(count)` and `math.floor(total)` share a line (one finding per rule and line): the
    second is fixed in a second round, and --diff shows both, like --fix does."""
    shutil.copyfile(FIX_DIR / "scalar_tensor.py", tmp_path / "scalar_tensor.py")
    result = cli("check", str(tmp_path), "--diff", "--unsafe-fixes", "--root", str(tmp_path))
    assert "+    return y * count.trunc() + total.floor()" in result.stdout


def test_fix_is_idempotent_and_reports_what_it_fixed(tmp_path):
    for name in ("print_guard", "logging_guard"):
        shutil.copyfile(FIX_DIR / f"{name}.py", tmp_path / f"{name}.py")
    first = cli("check", str(tmp_path), "--fix", "--no-dynamic", "--root", str(tmp_path), "--color", "never")
    assert first.exit_code == 0, first.output
    assert "Fixed 3 finding(s) in 2 file(s) (BRK201 x1, BRK202 x2)" in " ".join(first.stdout.split())
    assert "No findings" in first.stdout
    text = {p.name: p.read_bytes() for p in tmp_path.glob("*.py")}
    second = cli("check", str(tmp_path), "--fix", "--no-dynamic", "--root", str(tmp_path), "--color", "never")
    assert second.exit_code == 0 and "Fixed" not in second.stdout
    assert {p.name: p.read_bytes() for p in tmp_path.glob("*.py")} == text


def test_fix_keeps_crlf_comments_encoding_and_file_mode(tmp_path):
    code = ('# -*- coding: latin-1 -*-\r\n"""caf\xe9"""\r\nimport torch\r\n\r\n\r\n@torch.compile\r\n'
            'def f(x):\r\n    y = x * 2  # twice\r\n\r\n    # tell me\r\n    print(y)  # noisy\r\n'
            '    return y\r\n')
    path = tmp_path / "m.py"
    path.write_bytes(code.encode("latin-1"))
    path.chmod(0o640)
    fix_paths([path], Config(dynamic=False), load_catalog(), root=tmp_path)
    expected = code.replace("    print(y)  # noisy\r\n",
                            "    if not torch.compiler.is_compiling():\r\n        print(y)  # noisy\r\n")
    assert path.read_bytes() == expected.encode("latin-1")
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_fix_adds_import_torch_when_the_module_has_none(tmp_path):
    target, _ = fixed_copy(tmp_path, "stream_guard", unsafe=False)
    assert "import sys\n\nimport torch\nfrom torch import nn, randn\n" in target.read_text(encoding="utf-8")


def test_fix_uses_the_modules_own_torch_alias(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("import torch as th\n\n\n@th.compile\ndef f(x):\n    print(x)\n    return x + 1\n",
                    encoding="utf-8")
    fix_paths([path], Config(dynamic=False), load_catalog(), root=tmp_path)
    assert "    if not th.compiler.is_compiling():\n        print(x)\n" in path.read_text(encoding="utf-8")


# where a rewrite does not apply, it is not offered -----------------------------------------------------------
NOT_REWRITTEN = {
    "print on a line with another statement": "    y = x + 1; print(y)\n",
    "print as a value": "    y = [print(x)]\n",
    "if with an elif": "    if x.sum() > 0:\n        y = x\n    elif x.sum() < -1:\n        y = -x\n    else:\n"
                       "        y = x * 0\n",
    "if with a comment inside": "    if x.sum() > 0:\n        # why\n        y = x\n    else:\n        y = -x\n",
    "if that assigns two names": "    if x.sum() > 0:\n        y = x\n    else:\n        z = -x\n",
    "if without else on an unbound name": "    if x.sum() > 0:\n        w = x\n",
    ".item() in a range": "    for _ in range(x.sum().item()):\n        pass\n",
    ".item() with a Python number": "    n = 2 * x.sum().item()\n",
}


@pytest.mark.parametrize("body", NOT_REWRITTEN.values(), ids=list(NOT_REWRITTEN))
def test_shapes_a_rewrite_does_not_know_are_left_alone(tmp_path, body):
    path = tmp_path / "m.py"
    code = f"import torch\n\n\n@torch.compile\ndef f(x):\n    y = x\n{body}    return y\n"
    path.write_text(code, encoding="utf-8")
    outcome = fix_paths([path], Config(dynamic=False), load_catalog(), root=tmp_path, unsafe=True)
    assert outcome.fixed == [] and path.read_text(encoding="utf-8") == code


# reports --------------------------------------------------------------------------------------------------
def test_terminal_marks_fixable_findings_and_counts_them(tmp_path):
    for name in ("print_guard", "item_tensor"):
        shutil.copyfile(FIX_DIR / f"{name}.py", tmp_path / f"{name}.py")
    result = cli("check", str(tmp_path), "--no-dynamic", "--root", str(tmp_path), "--color", "never",
                 "--exit-zero")
    out = " ".join(result.stdout.split())
    assert "BRK201 [*] [predicted]" in out and "BRK102 [predicted]" in out
    assert "[*] 1 fixable with `breakscan --fix` (2 more with `--fix --unsafe-fixes`)." in out


def test_sarif_fixes_reproduce_what_fix_writes(tmp_path):
    """Applying every SARIF replacement of the safe fixes gives the file --fix writes."""
    shutil.copyfile(FIX_DIR / "stream_guard.py", tmp_path / "stream_guard.py")
    result = cli("check", str(tmp_path), "--no-dynamic", "--root", str(tmp_path), "--format", "sarif",
                 "--exit-zero")
    (run,) = json.loads(result.stdout)["runs"]
    edits = []
    for res in run["results"]:
        for change in res["fixes"][0]["artifactChanges"]:
            for rep in change["replacements"]:
                r = rep["deletedRegion"]
                edits.append(source.Edit(r["startLine"], r["startColumn"], r["endLine"], r["endColumn"],
                                         rep["insertedContent"]["text"]))
    text = (tmp_path / "stream_guard.py").read_text(encoding="utf-8")
    assert source.apply_edits(text, edits) == (FIX_DIR / "stream_guard.fixed.py").read_text(encoding="utf-8")


def test_line_edit_widens_to_whole_lines():
    edit = source.line_edit("a = 1\nb = 2\nc = 3\n", "a = 1\nb = 20\nc = 3\n")
    assert edit == source.Edit(2, 1, 3, 1, "b = 20\n")
    assert source.apply_edits("a = 1\nb = 2\nc = 3\n", [edit]) == "a = 1\nb = 20\nc = 3\n"


def test_two_identical_calls_in_one_function_are_both_fixed(tmp_path):
    """Both `print(x)` lines are found (one span per statement, not two) and both guarded."""
    path = tmp_path / "m.py"
    path.write_text("import torch\n\n\n@torch.compile\ndef f(x):\n    print(x)\n    y = x + 1\n    print(x)\n"
                    "    return y\n", encoding="utf-8")
    outcome = fix_paths([path], Config(dynamic=False), load_catalog(), root=tmp_path)
    assert [f.line for f in outcome.fixed] == [6, 8]
    assert path.read_text(encoding="utf-8").count("if not torch.compiler.is_compiling():") == 2
