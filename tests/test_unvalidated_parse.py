"""The static pass parses with libcst's per-node validation off (engine.parse_unvalidated): the
tree must be the one `libcst.parse_module` builds, and validation must be back on after, for the
rewrites that build nodes by hand."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from breakscan.static.engine import parse_unvalidated

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("path", sorted((ROOT / "breakscan" / "static").glob("*.py"))[:6], ids=lambda p: p.name)
def test_the_tree_is_the_one_parse_module_builds(path):
    data = path.read_bytes()
    fast, checked = parse_unvalidated(data), cst.parse_module(data)
    assert fast.deep_equals(checked)
    assert fast.bytes == data


def test_validation_is_back_on_after_a_parse_and_after_a_failed_one():
    parse_unvalidated(b"x = 1\n")
    with pytest.raises(cst.ParserSyntaxError):
        parse_unvalidated(b"def (:\n")
    with pytest.raises(cst.CSTValidationError):
        cst.SimpleWhitespace("x")  # not whitespace: libcst's validation rejects it
