"""What every reporter says about a rule id: its title and its graph-break ids and links.

A rule id is a catalog rule (`BRK102`), a Dynamo graph-break id for a break no rule predicted
(`GB0124`, titled from torch's graph-break registry), or anything else (titled by its family).
"""

from __future__ import annotations

import re

from breakscan.catalog import FAMILIES, GB_SITE, Rule, gb_registry_entry
from breakscan.findings import Finding

GB_ID = re.compile(r"^GB\d{4}$")


def gb_link(gb_id: str) -> str:
    """The graph-break site's page for `gb_id` (lower-case id in the URL)."""
    return GB_SITE.format(gb_id.lower())


def rule_title(rule_id: str, rules: dict[str, Rule]) -> str:
    """A one-line title: the catalog's, the registry's `Gb_type`, or the rule family's."""
    if rule_id in rules:
        return rules[rule_id].title
    if GB_ID.match(rule_id):
        entry = gb_registry_entry(rule_id) or {}
        return entry.get("Gb_type") or f"Dynamo graph break {rule_id}"
    return FAMILIES.get(rule_id[:4], "breakscan finding")


def finding_gb_ids(finding: Finding, rules: dict[str, Rule]) -> list[str]:
    """The finding's GB ids (its rule's when it has none), its own rule id first if a GB id."""
    rule = rules.get(finding.rule_id)
    ids = list(finding.gb_ids) or (list(rule.all_gb_ids) if rule else [])
    if GB_ID.match(finding.rule_id) and finding.rule_id not in ids:
        ids.insert(0, finding.rule_id)
    return ids
