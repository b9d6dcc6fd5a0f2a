"""One file being fixed: its libcst tree, node positions and parents, and text edits.

Only files with fixable findings are loaded here, so libcst's PositionProvider (which
code-generates the whole module) is paid for those files alone. Edits are computed by
code-generating the module with one node replaced and diffing the text against the
original, widened to whole lines: each edit then replaces complete lines, which keeps
indentation, comments and line endings of everything else byte for byte.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, ParentNodeProvider, PositionProvider

from breakscan.findings import Edit, Finding
from breakscan.static.engine import parse_file

_NEWLINE = re.compile(r"\r\n|\r|\n")


@dataclass
class SourceFile:
    """A parsed file with positions and parents of every node (see the module docstring)."""

    path: Path
    data: bytes
    module: cst.Module
    positions: dict = field(repr=False)
    parents: dict = field(repr=False)

    @property
    def text(self) -> str:
        return self.module.code

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self.parents.get(node)

    def ancestor(self, node: cst.CSTNode, kind: type) -> cst.CSTNode | None:
        """The nearest enclosing node of type `kind`."""
        node = self.parent(node)
        while node is not None and not isinstance(node, kind):
            node = self.parent(node)
        return node

    def span(self, node: cst.CSTNode) -> CodeRange:
        return self.positions[node]

    def node_at(self, finding: Finding, kind: type | tuple[type, ...]) -> cst.CSTNode | None:
        """The node of type `kind` that a finding points at (its start, and end when known).

        Positions of parenthesised expressions may include or exclude the parentheses on
        either side, so an exact match is tried first, then the node starting there.
        """
        start = (finding.line, finding.column - 1)
        end = (finding.end_line, finding.end_column - 1) if finding.end_line and finding.end_column else None
        starting = [n for n, r in self.positions.items()
                    if isinstance(n, kind) and (r.start.line, r.start.column) == start]
        for node in starting:
            r = self.positions[node]
            if end is None or (r.end.line, r.end.column) == end:
                return node
        return starting[0] if len(starting) == 1 else None

    def replace(self, old: cst.CSTNode, new: cst.CSTNode | cst.RemovalSentinel) -> Edit | None:
        """The whole-line edit that turns this file's text into the text with `old` replaced."""
        changed = self.module.deep_replace(old, new)
        return line_edit(self.text, changed.code) if isinstance(changed, cst.Module) else None


def load(path: Path) -> SourceFile | None:
    """Parse `path` for fixing; None when it cannot be read or parsed (nothing is fixed there)."""
    parsed = parse_file(path)
    if isinstance(parsed, Finding):
        return None
    data = path.read_bytes()
    wrapper = MetadataWrapper(parsed.module, unsafe_skip_copy=True)
    meta = wrapper.resolve_many([PositionProvider, ParentNodeProvider])
    return SourceFile(path, data, parsed.module, dict(meta[PositionProvider]), dict(meta[ParentNodeProvider]))


def line_starts(text: str) -> list[int]:
    """Offsets where each line starts (line 1 at index 0); a final entry for the text's end."""
    starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]
    if starts[-1] != len(text):
        starts.append(len(text))
    return starts


def to_offset(starts: Sequence[int], line: int, column: int) -> int:
    """The offset of 1-based (`line`, `column`); a line past the end is the text's end."""
    if line - 1 >= len(starts):
        return starts[-1]
    return starts[line - 1] + column - 1


def to_position(starts: Sequence[int], offset: int) -> tuple[int, int]:
    """1-based (line, column) of `offset`."""
    lo, hi = 0, len(starts) - 1
    while lo < hi:  # the last start <= offset
        mid = (lo + hi + 1) // 2
        if starts[mid] <= offset:
            lo = mid
        else:
            hi = mid - 1
    return lo + 1, offset - starts[lo] + 1


def line_edit(old: str, new: str) -> Edit | None:
    """The smallest whole-line edit turning `old` into `new` (None when they are equal)."""
    if old == new:
        return None
    limit = min(len(old), len(new))
    prefix = 0
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    start = max(old.rfind("\n", 0, prefix), old.rfind("\r", 0, prefix)) + 1  # back to a line start
    end = len(old) - suffix
    while end < len(old) and old[end - 1:end] not in ("\n", "") and end > start:  # on to a line end
        end += 1
    if end > start and old[end - 1] == "\r" and old[end:end + 1] == "\n":
        end += 1
    tail = len(old) - end
    inserted = new[start:len(new) - tail]
    starts = line_starts(old)
    line, column = to_position(starts, start)
    end_line, end_column = to_position(starts, end)
    return Edit(line, column, end_line, end_column, inserted)


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """`text` with non-overlapping `edits` applied (see `without_conflicts`)."""
    starts = line_starts(text)
    spans = sorted(((to_offset(starts, e.line, e.column), to_offset(starts, e.end_line, e.end_column), e.text)
                    for e in set(edits)), reverse=True)
    for begin, end, inserted in spans:
        text = text[:begin] + inserted + text[end:]
    return text


def overlaps(a: Edit, b: Edit) -> bool:
    """Whether two edits touch the same text (two insertions at one point count as touching)."""
    if a == b:
        return False
    a0, a1 = (a.line, a.column), (a.end_line, a.end_column)
    b0, b1 = (b.line, b.column), (b.end_line, b.end_column)
    if a0 == a1 and b0 == b1:
        return a0 == b0
    return a0 < b1 and b0 < a1 or (a0 == a1 and b0 < a0 < b1) or (b0 == b1 and a0 < b0 < a1)
