"""Generate the README's rule index from `rules/` (`python -m breakscan.docs --write`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from breakscan.catalog import FAMILIES, GB_SITE, Rule, load_catalog

START, END = "<!-- rule-index:start -->", "<!-- rule-index:end -->"


def rule_index(rules: dict[str, Rule]) -> str:
    """A Markdown table per family: id, name, kind, severity, GB ids (linked), torch, fix safety
    (`safe`/`unsafe` for rules `--fix` can rewrite), title."""
    out: list[str] = []
    for prefix, family in FAMILIES.items():
        members = [r for r in rules.values() if r.family == prefix]
        if not members:
            continue
        out += [f"**{prefix}xx — {family}**", "",
                "| id | name | kind | severity | Dynamo GB ids | torch | fix | what it flags |",
                "|---|---|---|---|---|---|---|---|"]
        for r in members:
            gbs = ", ".join(f"[{g}]({GB_SITE.format(g.lower())})" for g in r.all_gb_ids) or "—"
            title = r.title.replace("|", "\\|")
            note = " (CUDA only)" if r.requires == "cuda" else ""
            note += f" (Python {r.python_versions})" if r.python_versions else ""
            fix = r.autofix.safety if r.autofix else "—"
            out.append(f"| {r.id} | {r.name} | {r.kind.value} | {r.severity.value} | {gbs} | "
                       f"{r.torch_versions} | {fix} | {title}{note} |")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def render_readme(text: str, rules: dict[str, Rule]) -> str:
    """`text` with the block between the rule-index markers replaced. Raises ValueError without markers."""
    head, sep, rest = text.partition(START)
    _, sep2, tail = rest.partition(END)
    if not sep or not sep2:
        raise ValueError("README has no rule-index markers")
    return f"{head}{START}\n{rule_index(rules)}{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    """Check (default) or `--write` the README rule index; exit 1 when out of date."""
    parser = argparse.ArgumentParser(prog="python -m breakscan.docs")
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--readme", type=Path, default=Path(__file__).resolve().parent.parent / "README.md")
    args = parser.parse_args(argv)
    text = args.readme.read_text(encoding="utf-8")
    new = render_readme(text, load_catalog())
    if args.write:
        args.readme.write_text(new, encoding="utf-8")
        return 0
    if new != text:
        print("README rule index is out of date: run python -m breakscan.docs --write", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
