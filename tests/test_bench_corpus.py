"""The accuracy benchmark's corpus (bench/corpus): the held-out split and the examples files it
generates, whose function and method targets must root the static pass's compile regions."""

from __future__ import annotations

import hashlib
import sys
import textwrap
from pathlib import Path

from breakscan.catalog import load_catalog
from breakscan.config import Config
from breakscan.scan import active_rules
from breakscan.static.engine import scan_files
from tests.conftest import ROOT

sys.path.insert(0, str(ROOT))
from bench.accuracy import examples_file  # noqa: E402
from bench.corpus import CODEBASES, Case, cases, half  # noqa: E402


def test_half_is_the_parity_of_the_names_sha256_and_seen_cases_are_dev():
    for key, expected in (("kornia/filters.sobel", None), ("monai/UNet", None), ("diffusers/UNet2DModel", None)):
        digest = int(hashlib.sha256(key.encode()).hexdigest(), 16)
        codebase, name = key.split("/")
        assert half(Case(codebase, name, print)) == ("dev" if digest % 2 == 0 else "heldout")
    assert all(half(Case("transformers", n, print, seen=True)) == "dev" for n in ("gpt2", "roberta", "yoso"))


def test_both_halves_are_populated_and_names_are_unique():
    keys = [c.key for cb in CODEBASES for c in cases(cb)]
    assert len(keys) == len(set(keys))
    for cb in CODEBASES:
        halves = {half(c) for c in cases(cb)}
        assert halves == {"dev", "heldout"}, cb


def test_no_corpus_module_defines_a_helper_twice():
    # A second `def _points` would silently change the inputs of every case whose factory looks
    # the helper up when it runs (found when a batch of new dev cases reused three names).
    import ast
    from collections import Counter

    for module in sorted((ROOT / "bench" / "corpus").glob("*.py")):
        names = Counter(n.name for n in ast.parse(module.read_text()).body if isinstance(n, ast.FunctionDef))
        assert not [n for n, k in names.items() if k > 1], module.name


def _package(tmp_path: Path) -> list[Path]:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "ops.py").write_text(textwrap.dedent("""
        import torch

        def clip(x):
            if x.sum() > 0:
                return x
            return -x

        class Stepper:
            def step(self, x):
                return x * float(x.max())
    """))
    return [pkg / "__init__.py", pkg / "ops.py"]


def _findings(files: list[Path]) -> set[tuple[str, int]]:
    rules = active_rules(load_catalog(), Config(), None)
    result = scan_files(files, rules, regions_mode="explicit")
    return {(Path(f.path).name, f.line) for f in result.findings if f.rule_id.startswith("BRK1")}


def test_a_function_target_roots_the_region_at_the_function(tmp_path):
    files = _package(tmp_path)
    assert _findings(files) == set()  # nothing compiles pkg.ops.clip without the examples file
    case = Case("pkg", "ops.clip", print, target="pkg.ops.clip", modes=("call",))
    examples = examples_file(tmp_path, case, "call")
    assert "from pkg.ops import clip as target" in examples.read_text()
    assert ("ops.py", 5) in _findings([*files, examples])  # if x.sum() > 0


def test_a_method_target_roots_the_region_at_the_method(tmp_path):
    files = _package(tmp_path)
    case = Case("pkg", "Stepper.step", print, target="pkg.ops.Stepper.step", modes=("call",))
    examples = examples_file(tmp_path, case, "call")
    assert "yield Stepper.step, (fn.__self__, *args), kwargs" in examples.read_text()
    assert ("ops.py", 11) in _findings([*files, examples])  # float(x.max())
