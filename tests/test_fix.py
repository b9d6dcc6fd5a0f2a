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
    "print_loss": ({"BRK201"}, False),
    # Guarding with is_compiling() skips the call in compiled code: its output is lost there.
    "logging_guard": ({"BRK202"}, True),
    "warnings_guard": ({"BRK203"}, True),
    "stream_guard": ({"BRK211"}, True),
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
--- a/print_loss.py
+++ b/print_loss.py
@@ -4,6 +4,8 @@
 import torch
 from torch import nn
 from torch.nn import functional as F
+
+torch._dynamo.config.reorderable_logging_functions.add(print)
 
 
 @torch.compile
'''


def test_diff_prints_the_exact_rewrite_and_writes_nothing(tmp_path):
    shutil.copyfile(FIX_DIR / "print_loss.py", tmp_path / "print_loss.py")
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in tmp_path.iterdir()}
    result = cli("check", str(tmp_path), "--diff", "--root", str(tmp_path))
    assert result.exit_code == 1, result.output
    assert result.stdout == EXPECTED_DIFF
    assert {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in tmp_path.iterdir()} == before


def test_diff_exits_zero_when_there_is_nothing_to_fix(tmp_path):
    shutil.copyfile(FIX_DIR / "print_loss.fixed.py", tmp_path / "model.py")
    result = cli("check", str(tmp_path), "--diff", "--root", str(tmp_path))
    assert result.exit_code == 0 and result.stdout == ""


def test_diff_shows_what_several_fix_rounds_do(tmp_path):
    """`int(count)` and `math.floor(total)` share a line (one finding per rule and line): the
    second is fixed in a second round, and --diff shows both, like --fix does."""
    shutil.copyfile(FIX_DIR / "scalar_tensor.py", tmp_path / "scalar_tensor.py")
    result = cli("check", str(tmp_path), "--diff", "--unsafe-fixes", "--root", str(tmp_path))
    assert "+    return y * count.trunc() + total.floor()" in result.stdout


def test_fix_is_idempotent_and_reports_what_it_fixed(tmp_path):
    for name in ("print_loss", "logging_guard"):
        shutil.copyfile(FIX_DIR / f"{name}.py", tmp_path / f"{name}.py")
    first = cli("check", str(tmp_path), "--fix", "--unsafe-fixes", "--no-dynamic", "--root", str(tmp_path),
                "--color", "never")
    assert first.exit_code == 0, first.output
    assert "Fixed 3 finding(s) in 2 file(s) (BRK201 x1, BRK202 x2)" in " ".join(first.stdout.split())
    assert "No findings" in first.stdout
    text = {p.name: p.read_bytes() for p in tmp_path.glob("*.py")}
    second = cli("check", str(tmp_path), "--fix", "--unsafe-fixes", "--no-dynamic", "--root", str(tmp_path),
                 "--color", "never")
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
    expected = code.replace("import torch\r\n",
                            "import torch\r\n\r\ntorch._dynamo.config.reorderable_logging_functions.add(print)\r\n")
    assert path.read_bytes() == expected.encode("latin-1")
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_fix_adds_import_torch_when_the_module_has_none(tmp_path):
    target, _ = fixed_copy(tmp_path, "stream_guard", unsafe=True)
    assert "import sys\n\nimport torch\nfrom torch import nn, randn\n" in target.read_text(encoding="utf-8")


def test_fix_uses_the_modules_own_torch_alias(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("import torch as th\n\n\n@th.compile\ndef f(x):\n    print(x)\n    return x + 1\n",
                    encoding="utf-8")
    fix_paths([path], Config(dynamic=False), load_catalog(), root=tmp_path)
    assert "import torch as th\n\nth._dynamo.config.reorderable_logging_functions.add(print)\n" \
        in path.read_text(encoding="utf-8")


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
    for name in ("print_loss", "item_tensor"):
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
    """Both `print(x)` lines are found (one span per statement, not two) and both fixed by the
    one line that makes print reorderable."""
    path = tmp_path / "m.py"
    path.write_text("import torch\n\n\n@torch.compile\ndef f(x):\n    print(x)\n    y = x + 1\n    print(x)\n"
                    "    return y\n", encoding="utf-8")
    outcome = fix_paths([path], Config(dynamic=False), load_catalog(), root=tmp_path)
    assert [f.line for f in outcome.fixed] == [6, 8]
    assert path.read_text(encoding="utf-8").count("reorderable_logging_functions.add(print)") == 1


# BRK201: the print is kept, reordered after the graph ---------------------------------------------------------
@requires_torch
def test_print_fix_keeps_the_loss_log_with_no_graph_break(capfd):
    """The training step's loss log: printed by the compiled code before the fix (with a graph
    break) and after it (no break), the same text as in eager code (real Dynamo, torch 2.13)."""
    import torch
    from torch._dynamo.utils import counters

    printed, breaks, graphs = {}, {}, {}
    for name in ("print_loss", "print_loss.fixed"):
        module = _load(FIX_DIR / f"{name}.py")
        [(step, args)] = list(module.breakscan_examples())
        step = step._torchdynamo_orig_callable  # the user's function, compiled here with the eager backend
        capfd.readouterr()
        step(*args)
        printed["eager"] = capfd.readouterr().out
        torch._dynamo.reset()
        counters.clear()
        torch.compile(step, backend="eager")(*args)
        printed[name] = capfd.readouterr().out
        breaks[name] = sum(counters["graph_break"].values())
        graphs[name] = counters["stats"]["unique_graphs"]
    assert printed["eager"].startswith("loss tensor(")
    assert printed["print_loss"] == printed["print_loss.fixed"] == printed["eager"]
    assert (breaks["print_loss"], graphs["print_loss"]) == (1, 2)
    assert (breaks["print_loss.fixed"], graphs["print_loss.fixed"]) == (0, 1)


NOT_REORDERED = {
    "print in a helper Dynamo inlines (it would be dropped)":
        "def log(v):\n    print('value', v)\n\n\n@torch.compile\ndef f(x):\n    log(x)\n    return x + 1\n",
    "print with a keyword argument (not replayed)":
        "@torch.compile\ndef f(x):\n    print('value', x, sep='=')\n    return x + 1\n",
    "a tensor changed in place after the print (it would print the later value)":
        "@torch.compile\ndef f(x):\n    y = x * 2\n    print('y', y)\n    y.add_(1)\n    return y\n",
    "an augmented assignment in the function":
        "@torch.compile\ndef f(x):\n    y = x * 2\n    print('y', y)\n    y += 1\n    return y\n",
    "another print in compiled code (a submodule's forward may be inlined)":
        "class Block(torch.nn.Module):\n    def forward(self, x):\n        print('block', x)\n        return x\n\n\n"
        "@torch.compile\ndef f(x):\n    print('in', x)\n    return Block()(x)\n",
    "a suppressed print in a helper (hidden from the report, still dropped if made reorderable)":
        "def log(v):\n    print('value', v)  # noqa: BRK201\n\n\n@torch.compile\ndef f(x):\n    print('in', x)\n"
        "    log(x)\n    return x + 1\n",
    "a compiled function that another compiled function calls (Dynamo inlines it there)":
        "@torch.compile\ndef f(x):\n    print('in', x)\n    return x + 1\n\n\n"
        "@torch.compile\ndef g(x):\n    return f(x) * 2\n",
    "print in a nested function":
        "@torch.compile\ndef f(x):\n    def g(v):\n        print('v', v)\n        return v\n    return g(x)\n",
    "print in a module's forward (inlined when the module is a submodule)":
        "class Block(torch.nn.Module):\n    def forward(self, x):\n        print('block', x)\n        return x\n",
}


@pytest.mark.parametrize("body", NOT_REORDERED.values(), ids=list(NOT_REORDERED))
def test_print_is_not_made_reorderable_where_output_could_change(tmp_path, body):
    path = tmp_path / "m.py"
    code = f"import torch\n\n\n{body}"
    path.write_text(code, encoding="utf-8")
    outcome = fix_paths([path], Config(dynamic=False), load_catalog(), root=tmp_path, unsafe=True)
    assert outcome.fixed == [] and path.read_text(encoding="utf-8") == code


def test_reorderable_print_is_not_a_predicted_break(tmp_path):
    """Once the module makes print reorderable, a print of tensors, numbers and strings is no
    break, nor one with a keyword argument (Dynamo drops `end=`: no break, which is why the fix is
    not offered for it); a `torch.Size` argument still breaks (GB0296; checked on torch 2.13)."""
    from tests.conftest import rule_lines, static_findings

    findings = static_findings(tmp_path, """\
        import torch

        torch._dynamo.config.reorderable_logging_functions.add(print)


        @torch.compile
        def f(x):
            y = x * 2
            print("y", y, 3, f"{y:.2f}")
            print("shape", y.shape)
            print("y", y, end="")
            return y
        """)
    assert {line for rule, line in rule_lines(findings) if rule == "BRK201"} == {10}


def test_context_dependent_rewrites_are_named_where_the_cache_can_see_them():
    from breakscan.fix import CONTEXT_REWRITES
    from breakscan.fix.rewrites import NEEDS_FINDINGS

    assert NEEDS_FINDINGS == CONTEXT_REWRITES


@pytest.mark.parametrize("name", sorted(p.stem for p in FIX_DIR.glob("*.py") if not p.stem.endswith(".fixed")))
def test_parents_of_a_fix_fixture_are_those_libcst_s_parent_provider_gives(name):
    # source.parents_under replaces ParentNodeProvider (six times its cost per class member):
    # on each fix fixture, written as users write models, the two maps must be the same.
    import libcst as cst
    from libcst.metadata import MetadataWrapper, ParentNodeProvider

    module = cst.parse_module((FIX_DIR / f"{name}.py").read_bytes())
    expected = dict(MetadataWrapper(module, unsafe_skip_copy=True).resolve(ParentNodeProvider))
    got = source.parents_under(module)
    assert got.keys() == expected.keys()
    assert all(got[node] is expected[node] for node in expected)
