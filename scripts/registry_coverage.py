"""Write docs/registry-coverage.md: what the static pass does with each entry of Dynamo's graph-break registry.

Reads the installed torch's `torch/_dynamo/graph_break_registry.json` (without importing torch), the rule
catalog (`rules/BRK*.toml`: an id in a rule's `gb_ids` is covered when the rule's torch range includes the
installed version) and the triage file `rules/data/registry-triage.toml` (every other id: `candidate` or
`not-static` with a reason class). An id in none of them is `undecided` and listed as new, so a newer
torch shows what it added. `--compare-with PYTHON` reads the registry of another interpreter's torch
(e.g. a newer one) and lists the ids it adds, with a decision suggested from Dynamo's own hints.

Usage: python scripts/registry_coverage.py [--output docs/registry-coverage.md] [--compare-with PYTHON]...
       python scripts/registry_coverage.py --check   # exit 1 when an installed id is not triaged, or a triaged id is stale
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import subprocess
import sys
import tomllib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from breakscan.catalog import load_catalog  # noqa: E402

TRIAGE = ROOT / "rules" / "data" / "registry-triage.toml"
OUTPUT = ROOT / "docs" / "registry-coverage.md"
DECISIONS = ("rule", "candidate", "not-static", "undecided")
# Dynamo's own hint constants (torch/_dynamo/graph_break_hints.py): a first guess for a new id.
HINT_GUESSES = {
    "This is likely to be a Dynamo bug": "not-static: internal",
    "Your code may result in an error when running in eager": "not-static: user-error",
    "caused by an earlier graph break": "not-static: follow-on",
}
# Run by another interpreter: where its torch's registry is and its version, without importing torch.
_LOCATE = (
    "import importlib.util, importlib.metadata, json, pathlib; s = importlib.util.find_spec('torch'); "
    "print(json.dumps([importlib.metadata.version('torch'), "
    "str(pathlib.Path(s.origin).parent / '_dynamo' / 'graph_break_registry.json')]))"
)


@dataclass(frozen=True)
class Row:
    """One registry entry and the static pass's decision on it."""

    gb_id: str
    gb_type: str
    decision: str  # one of DECISIONS
    detail: str  # rule ids, the candidate's pattern, or "reason: why"


def installed_registry() -> tuple[str, Path]:
    """(torch version, registry path) of the torch importable here. Raises SystemExit without torch."""
    spec = importlib.util.find_spec("torch")
    if spec is None or spec.origin is None:
        raise SystemExit("torch is not installed in this interpreter")
    return importlib.metadata.version("torch"), Path(spec.origin).parent / "_dynamo" / "graph_break_registry.json"


def other_registry(python: str) -> tuple[str, dict]:
    """(torch version, registry entries) of another interpreter's torch; only reads its files."""
    out = subprocess.run([python, "-c", _LOCATE], capture_output=True, text=True, check=True, timeout=60)
    version, path = json.loads(out.stdout)
    return version, json.loads(Path(path).read_text(encoding="utf-8"))


def rule_coverage(torch_version: str) -> dict[str, list[str]]:
    """GB id -> ids of the rules that give it on `torch_version` (from rules/BRK*.toml: `gb_ids`, or
    the `[[gb_ids_by_torch]]` entry for that version)."""
    major, minor = (int(p) for p in torch_version.split("+")[0].split(".")[:2])
    covered: dict[str, list[str]] = {}
    for rule in load_catalog().values():
        if rule.applies_to((major, minor)):
            for gb in rule.gb_ids_for((major, minor)):
                covered.setdefault(gb, []).append(rule.id)
    return covered


def load_triage(path: Path = TRIAGE) -> tuple[dict, dict[str, dict]]:
    """(the whole triage file, GB id -> its group). Raises ValueError on an id decided twice."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    by_id: dict[str, dict] = {}
    for group in data.get("group", []):
        if group["decision"] not in DECISIONS[1:]:
            raise ValueError(f"bad decision {group['decision']!r} for {group['ids']}")
        if group["decision"] == "not-static" and group.get("reason") not in data["reasons"]:
            raise ValueError(f"unknown reason {group.get('reason')!r} for {group['ids']}")
        for gb in group["ids"]:
            if gb in by_id:
                raise ValueError(f"{gb} is decided twice in {path.name}")
            by_id[gb] = group
    return data, by_id


def decide(registry: dict, covered: dict[str, list[str]], triage: dict[str, dict]) -> list[Row]:
    """One row per registry id: a rule that covers it wins over the triage file; neither: undecided."""
    rows = []
    for gb, entries in registry.items():
        gb_type = entries[0]["Gb_type"]
        if gb in covered:
            rows.append(Row(gb, gb_type, "rule", ", ".join(covered[gb])))
        elif gb in triage:
            group = triage[gb]
            if group["decision"] == "candidate":
                hint = f" (see {group['rule_hint']})" if group.get("rule_hint") else ""
                measured = f" [measured {group['measured']}]" if group.get("measured") else ""
                rows.append(Row(gb, gb_type, "candidate", group["pattern"] + hint + measured))
            elif group["decision"] == "not-static":
                rows.append(Row(gb, gb_type, "not-static", f"{group['reason']}: {group['why']}"))
            else:
                rows.append(Row(gb, gb_type, "undecided", group.get("why", "")))
        else:
            rows.append(Row(gb, gb_type, "undecided", "not in rules/data/registry-triage.toml (new in this torch?)"))
    return rows


def guess(entry: dict) -> str:
    """A first decision for an untriaged entry, from Dynamo's hint constants; '' when none applies."""
    hints = " ".join(entry.get("Hints", []))
    return next((g for text, g in HINT_GUESSES.items() if text in hints), "")


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def render(version: str, rows: list[Row], reasons: dict[str, str], stale: list[str],
           others: list[tuple[str, dict, dict]], triage: dict[str, dict]) -> str:
    """The markdown page. `others`: (version, registry, installed registry) for each --compare-with."""
    counts = Counter(r.decision for r in rows)
    cand_groups = list({id(g): g for g in triage.values() if g["decision"] == "candidate"}.values())
    not_static = Counter(r.detail.split(":")[0] for r in rows if r.decision == "not-static")
    out = [
        "# Graph-break registry coverage",
        "",
        f"Generated by `scripts/registry_coverage.py` from torch {version}'s "
        "`torch/_dynamo/graph_break_registry.json`, the rules' `gb_ids` (`rules/BRK*.toml`) and the triage "
        "file `rules/data/registry-triage.toml`. Do not edit by hand: edit the triage file or a rule and "
        "run the script again.",
        "",
        "Decisions: **rule**: a rule of the static pass lists the id (and applies to this torch); "
        "**candidate**: statically detectable, no rule yet (the pattern a rule would match); "
        "**not-static**: a rule cannot predict it (reason class below); **undecided**: not triaged yet.",
        "",
        "## Summary",
        "",
        "| decision | ids |",
        "|---|---:|",
        *(f"| {d} | {counts.get(d, 0)} |" for d in DECISIONS),
        f"| **total** | {len(rows)} |",
        "",
        "Statically detectable (rule + candidate): "
        f"{counts.get('rule', 0) + counts.get('candidate', 0)} of {len(rows)}; "
        f"{sum('measured' in g for g in cand_groups)} of the {len(cand_groups)} candidate patterns checked with "
        "Dynamo (their `measured` note says what broke, and with which GB id).",
        "",
        "| not-static reason | ids | meaning |",
        "|---|---:|---|",
        *(f"| {name} | {not_static.get(name, 0)} | {_cell(text)} |" for name, text in reasons.items()),
        "",
    ]
    if stale:
        out += ["Triaged ids that this torch's registry does not have (removed or renumbered): "
                + ", ".join(stale) + ".", ""]
    for other_version, other, installed in others:
        new = [gb for gb in other if gb not in installed]
        gone = [gb for gb in installed if gb not in other]
        out += [f"## New in torch {other_version}", "",
                f"torch {other_version}'s registry has {len(other)} entries: {len(new)} ids that {version} does "
                f"not have, {len(gone)} of {version}'s ids gone. The new ids, with a first guess from Dynamo's "
                "hints where it gives one (they are undecided until triaged):", ""]
        if new:
            out += ["| id | Gb_type | triaged | guess from hints |", "|---|---|---|---|"]
            out += [f"| {gb} | {_cell(other[gb][0]['Gb_type'])} | {triage[gb]['decision'] if gb in triage else 'no'} "
                    f"| {guess(other[gb][0])} |" for gb in new]
            out.append("")
    out += ["## Every id", "", "| id | Gb_type | decision | rule, pattern or reason |", "|---|---|---|---|"]
    out += [f"| {r.gb_id} | {_cell(r.gb_type)} | {r.decision} | {_cell(r.detail)} |" for r in rows]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the page; with --check, only report ids missing from the triage file or stale (exit 1 on any)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=OUTPUT)
    parser.add_argument("--compare-with", action="append", default=[], metavar="PYTHON",
                        help="another interpreter whose torch registry to compare with (read only)")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 on untriaged or stale ids")
    args = parser.parse_args(argv)
    version, path = installed_registry()
    registry = json.loads(path.read_text(encoding="utf-8"))
    data, triage = load_triage()
    rows = decide(registry, rule_coverage(version), triage)
    stale = sorted(gb for gb in triage if gb not in registry)
    new = [r.gb_id for r in rows if r.decision == "undecided" and r.gb_id not in triage]
    if args.check:
        for gb in new:
            print(f"not triaged: {gb}")
        for gb in stale:
            print(f"stale (not in torch {version}'s registry): {gb}")
        return 1 if new or stale else 0
    others = [(*other_registry(py), registry) for py in args.compare_with]
    args.output.write_text(render(version, rows, data["reasons"], stale, others, triage), encoding="utf-8")
    counts = Counter(r.decision for r in rows)
    print(f"torch {version}: {len(rows)} ids; " + ", ".join(f"{d} {counts.get(d, 0)}" for d in DECISIONS)
          + f" -> {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
