"""Merge static predictions with Dynamo's observations into one list of findings.

Statuses (DESIGN.md): `confirmed` when Dynamo broke on a line a static finding spans;
`refuted` when Dynamo traced that line without breaking (and, for a conditional finding, traced
one of the breaks it follows from; a finding behind a test on the same line, `extra["guard_lines"]`,
is not refuted by those lines: their trace does not show that it ran); `predicted` otherwise; Dynamo-only
breaks stay `observed` under their graph-break id.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

from breakscan.findings import Finding, Kind, Status

BREAK_KINDS = (Kind.GRAPH_BREAK, Kind.FRAME_FALLBACK)


def _key(path: str) -> str:
    try:
        return str(Path(path).resolve())
    except OSError:
        return path


def merge(static: Iterable[Finding], dynamic: Iterable[Finding],
          traced_lines: dict[str, set[int]] | None = None) -> list[Finding]:
    """Combine both passes; see the module docstring. Returns findings sorted by location."""
    traced = {_key(p): lines for p, lines in (traced_lines or {}).items()}
    by_file: dict[str, list[Finding]] = defaultdict(list)
    passthrough: list[Finding] = []
    recompiles: dict[str, list[Finding]] = defaultdict(list)
    for finding in dynamic:
        if finding.extra.get("rank_divergence") or finding.extra.get("expected"):
            passthrough.append(finding)  # BRK520/BRK521 (multirank): about the break, never merged into it
        elif finding.kind in BREAK_KINDS:
            by_file[_key(finding.path)].append(finding)
        elif finding.kind is Kind.RECOMPILE:
            recompiles[_key(finding.path)].append(finding)
        else:
            passthrough.append(finding)
    used: set[int] = set()
    out: list[Finding] = []
    for pred in static:
        if pred.kind is Kind.RECOMPILE:
            out.append(_match_recompile(pred, recompiles.get(_key(pred.path), []), used))
            continue
        if pred.kind not in BREAK_KINDS:
            out.append(pred)
            continue
        key = _key(pred.path)
        last = pred.end_line or pred.line
        on_line = [(i, d) for i, d in enumerate(by_file.get(key, ())) if pred.line <= d.line <= last]
        same_gb = [(i, d) for i, d in on_line if set(d.gb_ids) & set(pred.gb_ids)]
        if on_line:  # every break on the line is this finding's; the same-GB one speaks first
            ordered = same_gb + [m for m in on_line if m not in same_gb]
            out.append(_confirm(pred, [d for _, d in ordered]))
            used.update(id(d) for _, d in on_line)
        elif any(line in traced.get(key, ()) and line not in pred.extra.get("guard_lines", ())
                 for line in range(pred.line, last + 1)) and _condition_traced(pred, traced):
            out.append(pred.replace(status=Status.REFUTED))
        else:
            out.append(pred)
    for findings in [*by_file.values(), *recompiles.values()]:
        out.extend(d.replace(status=Status.OBSERVED) for d in findings if id(d) not in used)
    out.extend(d.replace(status=Status.OBSERVED) for d in passthrough)
    out.sort(key=Finding.sort_key)
    return out


def _condition_traced(pred: Finding, traced: dict[str, set[int]]) -> bool:
    """Whether the breaks a conditional prediction follows from were exercised.

    A finding with `extra["requires"]` ("path:line" sites, e.g. BRK406's breaks under a try
    block) only happens where one of them does: its line traced without a break refutes it
    only if one of those sites was traced too, not where another caller ran the same line.
    """
    requires = pred.extra.get("requires")
    if not requires:
        return True
    for site in requires:
        path, _, line = site.rpartition(":")
        if line.isdigit() and int(line) in traced.get(_key(path), ()):
            return True
    return False


def _match_recompile(pred: Finding, observed: list[Finding], used: set[int]) -> Finding:
    """A predicted recompile risk is confirmed by a Dynamo recompile guarded on its lines."""
    last = pred.end_line or pred.line
    hits = [d for d in observed if pred.line <= d.line <= last]
    if not hits:
        return pred
    used.update(id(d) for d in hits)
    first = hits[0]
    return pred.replace(status=Status.CONFIRMED, entry=first.entry, stack=first.stack,
                        extra={**pred.extra, "guard_failures": [d.message for d in hits], **_ranks(hits)})


def _confirm(pred: Finding, observed: list[Finding]) -> Finding:
    first = observed[0]
    gb_ids = tuple(dict.fromkeys(g for d in observed for g in d.gb_ids)) or pred.gb_ids  # Dynamo's own ids
    return pred.replace(
        status=Status.CONFIRMED, gb_ids=gb_ids, explanation=first.explanation,
        hints=first.hints, stack=first.stack, entry=first.entry,
        kind=first.kind if first.kind is Kind.FRAME_FALLBACK else pred.kind,
        extra={**pred.extra, "dynamo_message": first.message, **_ranks(observed)},
    )


def _ranks(observed: list[Finding]) -> dict[str, list[int]]:
    """`{"ranks": [...]}`: the ranks (multirank run) that observed any of `observed`; {} otherwise."""
    ranks = {r for d in observed for r in d.extra.get("ranks") or ()}
    return {"ranks": sorted(ranks)} if any("ranks" in d.extra for d in observed) else {}
