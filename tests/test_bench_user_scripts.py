"""bench/user_scripts.py runs a program alone under `breakscan run` and counts the statuses of the
breaks in its own file (real Dynamo; the figures themselves are the benchmark's, in the README)."""

from __future__ import annotations

import importlib.util

import pytest

from tests.conftest import ROOT, requires_torch

pytestmark = [pytest.mark.dynamic, requires_torch]


def _bench():
    spec = importlib.util.spec_from_file_location("user_scripts_bench", ROOT / "bench" / "user_scripts.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_program_is_run_alone_and_its_confirmed_break_counted():
    bench = _bench()
    found = bench.run_program(bench.HERE / "dev" / "p01_tolist_float.py")
    assert found == {"confirmed": ["BRK103@5"]}, found


def test_every_program_is_a_script_with_a_compile_region():
    bench = _bench()
    for half in ("dev", "heldout"):
        programs = sorted((bench.HERE / half).glob("*.py"))
        assert programs, half
        for path in programs:
            text = path.read_text()
            assert "torch.compile" in text and "import torch" in text, path.name
