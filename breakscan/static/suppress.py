"""Suppression comments: `# breakscan: ignore[ID,...]`, bare `# breakscan: ignore`, `# noqa: ID`."""

from __future__ import annotations

import re

_BREAKSCAN = re.compile(r"#\s*breakscan:\s*ignore(?:\[(?P<ids>[^\]]*)\])?", re.IGNORECASE)
_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<ids>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)


def suppressed_ids(line: str) -> set[str] | None:
    """Rule ids a source line suppresses; `{"*"}` for all; None when it has no such comment."""
    if "#" not in line:
        return None
    found: set[str] = set()
    for pattern in (_BREAKSCAN, _NOQA):
        m = pattern.search(line)
        if m:
            ids = m.group("ids")
            if not ids:
                return {"*"}
            found |= {i.strip().upper() for i in re.split(r"[\s,]+", ids) if i.strip()}
    return found or None


def is_suppressed(rule_id: str, lines: list[str], first: int, last: int) -> bool:
    """Whether `rule_id` is suppressed on line `first` or `last` (1-based) of `lines`.

    A prefix such as `BRK1` suppresses every rule of that family, as `--select` does.
    """
    for number in {first, last}:
        if 1 <= number <= len(lines):
            ids = suppressed_ids(lines[number - 1])
            if ids and ("*" in ids or any(rule_id.startswith(i) for i in ids)):
                return True
    return False
