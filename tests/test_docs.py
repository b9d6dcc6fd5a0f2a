"""The README's rule index is generated from rules/ and must be in sync; the catalog is well formed."""

from __future__ import annotations

from breakscan.catalog import FAMILIES, load_catalog
from breakscan.docs import render_readme
from tests.conftest import ROOT


def test_readme_rule_index_is_in_sync_with_rules():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert render_readme(text, load_catalog()) == text, "run: python -m breakscan.docs --write"


def test_catalog_has_thirty_rules_with_fix_rationale_and_examples():
    catalog = load_catalog()
    assert len(catalog) >= 30
    for rule in catalog.values():
        assert rule.family in FAMILIES
        assert rule.fix and rule.rationale and rule.message
        if rule.family == "BRK9":
            continue  # breakscan's own errors have no code example
        assert rule.breaking and rule.fixed, rule.id
        for example in rule.breaking:
            assert f"expect: {rule.id}" in example.code, rule.id
