"""Real transformers models (tiny configs, random weights, offline): breaks at transformers lines.

The expected sites are the ones measured with Dynamo's own logs and recorded in
bench/accuracy_models.py (transformers 5.23.0 line numbers; other versions are skipped).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import re
import sys
from pathlib import Path

import pytest

from breakscan.catalog import load_catalog
from breakscan.config import Config
from breakscan.scan import run_scan
from tests.conftest import FIXTURES, ROOT, requires_torch

REAL = sorted((FIXTURES / "real").glob("*_model.py"))
HAS_TRANSFORMERS = importlib.util.find_spec("transformers") is not None
pytestmark = [
    requires_torch, pytest.mark.dynamic, pytest.mark.slow,
    pytest.mark.skipif(not HAS_TRANSFORMERS, reason="transformers is not installed (test extra)"),
]


def _recorded() -> dict[str, tuple]:
    sys.path.insert(0, str(ROOT))
    try:
        from bench.accuracy_models import MODELS
    finally:
        sys.path.remove(str(ROOT))
    return {m["name"]: m["observed"] for m in MODELS}


@pytest.fixture(scope="module")
def real_report():
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if importlib.metadata.version("transformers") != "5.23.0":
        pytest.skip("recorded break lines are for transformers 5.23.0")
    return run_scan(REAL, Config(timeout=600), load_catalog(), root=ROOT)


def test_at_least_three_real_models_are_bundled():
    assert len(REAL) >= 3


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.stem)
def test_recorded_dynamo_breaks_are_reported_at_transformers_lines(real_report, path):
    name = path.stem.removesuffix("_model")
    recorded = _recorded()[name]
    assert recorded, f"{name} should graph-break on torch 2.13"
    # Entries are named after the compiled model class (in transformers), and each model has its
    # own modeling file, so the union of all reported sites identifies each model's breaks.
    breaks = [f for f in real_report.findings if f.kind.value in ("graph-break", "frame-fallback")]
    # Where each break happened: the innermost frame of its stack (the finding itself sits at
    # the user's call site, the fixture's `yield`: breakscan.callsite).
    reported = {(Path(f.stack[-1].path).as_posix().split("/transformers/", 1)[-1], f.stack[-1].line, gb)
                for f in breaks for gb in f.gb_ids}
    for rel, line, gb, _gb_type in recorded:
        if rel.startswith("../"):
            # A site in torch (CTRL's `register_buffer`): with no frame in the project, the break
            # sits at the innermost frame that is neither torch nor the standard library, the
            # transformers line that called it; torch's frame stays in its stack.
            tail = rel.lstrip("./")
            assert any(gb in f.gb_ids and any("/transformers/" in Path(fr.path).as_posix() for fr in f.stack)
                       and any(fr.path.endswith(tail) and fr.line == line for fr in f.stack) for f in breaks), \
                f"{rel}:{line} {gb} not reported from transformers; got {sorted(reported)}"
            continue
        assert any(r[0].endswith(rel) and r[1:] == (line, gb) for r in reported), \
            f"{rel}:{line} {gb} not reported; got {sorted(reported)}"
    for finding in breaks:
        # A break in transformers (or in torch for CTRL, whose `register_buffer` frame falls back
        # whole) is located at the line of the fixture's examples that called the model.
        assert re.fullmatch(r"GB\d{4}", finding.rule_id)
        assert finding.stack and finding.explanation
        assert Path(finding.path).parent == FIXTURES / "real" and finding.stack[0].function == "breakscan_examples"
        assert "yield" in Path(finding.path).read_text().splitlines()[finding.line - 1]


def test_real_models_raise_no_error_findings(real_report):
    errors = [f for f in real_report.findings if f.kind.value == "error"]
    assert errors == []
    assert all(e.graphs >= 1 for e in real_report.entries)
