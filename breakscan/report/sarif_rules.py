"""SARIF `reportingDescriptor`s (SARIF 2.1.0 §3.49) for the rules that appear in a run.

Three sources: a catalog rule (`rules/*.toml`), a Dynamo graph-break id used as rule id for a
break no static rule predicted (`GB0124`, described from torch's graph-break registry), and a
fallback for any other id, so that every `result.ruleId` has a descriptor (GitHub code scanning
needs `shortDescription`, `fullDescription` and `help.text` on each).
"""

from __future__ import annotations

from typing import Any

from sarif_om import MultiformatMessageString, ReportingConfiguration, ReportingDescriptor

from breakscan.catalog import FAMILIES, Rule, gb_registry_entry
from breakscan.report.ruleinfo import GB_ID, gb_link
from breakscan.report.sarif_json import Properties

FULL_DESCRIPTION_MAX = 1024  # characters; GitHub truncates longer descriptions


def descriptor(rule_id: str, rules: dict[str, Rule], level: str) -> ReportingDescriptor:
    """The descriptor for `rule_id`; `level` is the default level when the catalog has none."""
    if rule_id in rules:
        return catalog_descriptor(rules[rule_id])
    if GB_ID.match(rule_id):
        return gb_descriptor(rule_id, gb_registry_entry(rule_id), level)
    return fallback_descriptor(rule_id, level)


def catalog_descriptor(rule: Rule) -> ReportingDescriptor:
    """A descriptor from a catalog rule: help carries rationale, fix, examples and GB links."""
    links = rule.gb_links()
    return ReportingDescriptor(
        id=rule.id,
        name=rule.name,
        short_description=MultiformatMessageString(text=rule.title),
        full_description=MultiformatMessageString(text=_truncate(rule.rationale)),
        help=MultiformatMessageString(
            text=rule_help_text(rule), markdown=rule_help_markdown(rule)
        ),
        help_uri=links[0] if links else None,
        default_configuration=ReportingConfiguration(level=rule.severity.value),
        properties=Properties(
            tags=_tags(rule.tags or ("torch.compile", rule.kind.value)),
            extra={"precision": rule.precision, "breakscan/gbIds": list(rule.all_gb_ids)},
        ),
    )


def gb_descriptor(gb_id: str, entry: dict[str, Any] | None, level: str) -> ReportingDescriptor:
    """A descriptor for a Dynamo graph-break id, from its registry `entry` when known."""
    entry = entry or {}
    title = entry.get("Gb_type") or f"Dynamo graph break {gb_id}"
    explanation = entry.get("Explanation") or f"Dynamo reported graph break {gb_id}."
    hints = [h.strip() for h in entry.get("Hints") or () if h.strip()]
    link = gb_link(gb_id)
    hint_text = ["Hints:\n" + "\n".join(f"- {h}" for h in hints)] if hints else []
    text = "\n\n".join([explanation, *hint_text, link])
    markdown = gb_help_markdown(gb_id, entry, "Observed by Dynamo; no breakscan rule predicted it.")
    return ReportingDescriptor(
        id=gb_id,
        name=f"dynamo-{gb_id.lower()}",
        short_description=MultiformatMessageString(text=title),
        full_description=MultiformatMessageString(text=_truncate(explanation)),
        help=MultiformatMessageString(text=text, markdown=markdown),
        help_uri=link,
        default_configuration=ReportingConfiguration(level=level),
        properties=Properties(
            tags=["torch.compile", "graph-break", "dynamo"],
            extra={"precision": "very-high", "breakscan/gbIds": [gb_id]},
        ),
    )


def gb_help_markdown(gb_id: str, entry: dict[str, Any] | None, note: str = "") -> str:
    """Markdown help for a Dynamo graph-break id: its registry `entry`'s explanation and hints
    (torch's `graph_break_registry.json`, via `catalog.gb_registry_entry`), `note`, the site link."""
    entry = entry or {}
    explanation = entry.get("Explanation") or f"Dynamo reported graph break {gb_id}."
    hints = [h.strip() for h in entry.get("Hints") or () if h.strip()]
    return "\n\n".join(
        [
            explanation,
            *(["**Hints**\n\n" + "\n".join(f"- {h}" for h in hints)] if hints else []),
            *([note] if note else []),
            f"[{gb_id} on the graph-break site]({gb_link(gb_id)})",
        ]
    )


def fallback_descriptor(rule_id: str, level: str) -> ReportingDescriptor:
    """A minimal descriptor for an id neither in the catalog nor a GB id."""
    family = FAMILIES.get(rule_id[:4], "breakscan finding")
    text = f"{rule_id}: {family}."
    return ReportingDescriptor(
        id=rule_id,
        name=rule_id.lower(),
        short_description=MultiformatMessageString(text=f"breakscan {rule_id}"),
        full_description=MultiformatMessageString(text=text),
        help=MultiformatMessageString(text=text, markdown=text),
        default_configuration=ReportingConfiguration(level=level),
        properties=Properties(tags=["torch.compile"], extra={"precision": "medium"}),
    )


def _python(rule: Rule, quote: str = "") -> str:
    return f", Python {quote}{rule.python_versions}{quote}" if rule.python_versions else ""


def _releases(rule: Rule, quote: str = "") -> str:
    """Per-release facts after the range: patterns with their own range, verified releases."""
    q = quote
    out = "".join(f" {q}{p}{q} breaks on torch {q}{spec}{q} only." for p, spec in rule.match.get("torch", {}).items())
    if rule.verified:
        out += f" Verified on torch {', '.join(rule.verified)}."
    return out


def rule_help_text(rule: Rule) -> str:
    """Plain-text help: title, rationale, fix, torch versions, examples, limitations, links."""
    parts = [rule.title, rule.rationale, f"Fix:\n{rule.fix}", f"Breaks on torch {rule.torch_versions}{_python(rule)}.{_releases(rule)}"]
    parts += [f"Breaking example:\n{_indent(e.shown)}" for e in rule.breaking]
    parts += [f"Fixed example:\n{_indent(e.shown)}" for e in rule.fixed]
    if rule.limitations:
        parts.append(f"Limitations:\n{rule.limitations}")
    parts += [f"Graph-break site: {link}" for link in rule.gb_links()]
    return "\n\n".join(parts)


def rule_help_markdown(rule: Rule) -> str:
    """Markdown help: the parts of `rule_help_text`, examples as fenced code, GB links."""
    parts = [
        f"**{rule.title}**",
        rule.rationale,
        f"### Fix\n\n{rule.fix}",
        f"Breaks on torch `{rule.torch_versions}`{_python(rule, '`')}.{_releases(rule, '`')}",
    ]
    parts += [f"### Breaking example\n\n{_fence(e.shown)}" for e in rule.breaking]
    parts += [f"### Fixed example\n\n{_fence(e.shown)}" for e in rule.fixed]
    if rule.limitations:
        parts.append(f"### Limitations\n\n{rule.limitations}")
    if rule.all_gb_ids:
        links = "\n".join(f"- [{gb}]({gb_link(gb)})" for gb in rule.all_gb_ids)
        parts.append(f"### Graph-break site\n\n{links}")
    return "\n\n".join(parts)


_rule_help_markdown = rule_help_markdown  # the CLI's `breakscan rule` imported this name


def _fence(code: str) -> str:
    return f"```python\n{code.strip()}\n```"


def _indent(code: str) -> str:
    return "\n".join("    " + line if line else "" for line in code.strip().splitlines())


def _tags(tags: tuple[str, ...] | list[str]) -> list[str]:
    return list(dict.fromkeys(tags))  # the schema wants unique items


def _truncate(text: str, limit: int = FULL_DESCRIPTION_MAX) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0]
    return cut + "…"
