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
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from breakscan.findings import Edit, Finding
from breakscan.static.engine import parsed_again
from breakscan.static.positions import file_lines, resolve_alone

_NEWLINE = re.compile(r"\r\n|\r|\n")


@dataclass
class SourceFile:
    """A parsed file whose node positions (libcst's PositionProvider) and parents (`parents_under`)
    are resolved per top-level statement, on demand: PositionProvider code-generates what it
    covers, and a finding needs only the statement (class, function) that holds it."""

    path: Path
    data: bytes
    module: cst.Module
    text: str
    tops: list[tuple[int, int]] = field(repr=False)  # (first line, last line) per module.body item
    members: dict[int, list[tuple[int, int]]] = field(default_factory=dict, repr=False)  # per class body item
    positions: dict = field(default_factory=dict, repr=False)  # node -> CodeRange, file lines
    parents: dict = field(default_factory=dict, repr=False)
    _done: set = field(default_factory=set, repr=False)  # top-level indexes, (class, member) pairs, -1: all
    _line_starts: list[int] | None = field(default=None, repr=False)
    _lines: list[str] | None = field(default=None, repr=False)  # positions._LINE lines
    _by_start: dict = field(default_factory=dict, repr=False)

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

    def _resolve(self, line: int) -> None:
        """Positions and parents of the statement holding `line`: a member of a top-level class,
        else the top-level statement (positions.resolve_alone); the whole module when that
        statement does not render back to its own lines, or when `line` is in none."""
        found = [i for i, (first, last) in enumerate(self.tops) if first <= line <= last]
        i = found[0] if found else -1
        if i in self._done or -1 in self._done:
            return
        if i >= 0:
            key, stmt, (first, last), parent = self._part(i, line)
            if key in self._done:
                return
            if self._lines is None:
                self._lines = file_lines(self.text)
            got = resolve_alone(self.module, stmt, first, last, self._lines, (PositionProvider,))
            if got is not None:
                self._done.add(key)
                meta, shift, min_line = got
                self._add(meta[PositionProvider], parents_under(stmt), shift, min_line)
                self.parents[stmt] = parent
                return
        self._done.add(-1)
        positions = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)
        self._add(positions, parents_under(self.module), 0, 1)

    def _part(self, i: int, line: int) -> tuple[object, cst.BaseStatement, tuple[int, int], cst.CSTNode]:
        """(done key, statement, its lines, its parent) for `line` in top-level statement `i`:
        the class member holding it when `i` is a class, else the statement itself."""
        top = self.module.body[i]
        for j, (first, last) in enumerate(self.members.get(i, ())):
            if first <= line <= last and isinstance(top, cst.ClassDef) and isinstance(top.body, cst.IndentedBlock):
                self.parents[top.body] = top
                self.parents[top] = self.module
                return (i, j), top.body.body[j], (first, last), top.body
        return i, top, self.tops[i], self.module

    def _add(self, positions: dict, parents: dict, shift: int, min_line: int) -> None:
        """Record positions (moved down `shift` lines) and parents of the nodes that start at or
        below generated line `min_line` (the statement's own, not a wrapper's)."""
        for node, r in positions.items():
            if r.start.line < min_line:
                continue
            moved = CodeRange((r.start.line + shift, r.start.column), (r.end.line + shift, r.end.column))
            self.positions[node] = moved
            self._by_start.setdefault((moved.start.line, moved.start.column), []).append(node)
        for node, parent in parents.items():
            if node in self.positions:
                self.parents[node] = parent

    def node_at(self, finding: Finding, kind: type | tuple[type, ...]) -> cst.CSTNode | None:
        """The node of type `kind` that a finding points at (its start, and end when known).

        Positions of parenthesised expressions may include or exclude the parentheses on
        either side, so an exact match is tried first, then the node starting there.
        """
        self._resolve(finding.line)
        start = (finding.line, finding.column - 1)
        end = (finding.end_line, finding.end_column - 1) if finding.end_line and finding.end_column else None
        starting = [n for n in self._by_start.get(start, ()) if isinstance(n, kind) and self._holds(n, finding)]
        for node in starting:
            r = self.positions[node]
            if end is None or (r.end.line, r.end.column) == end:
                return node
        return starting[0] if len(starting) == 1 else None

    def _holds(self, node: cst.CSTNode, finding: Finding) -> bool:
        """Whether `node`'s text is the code the finding quotes (a finding placed on the wrong
        node must not be rewritten there); findings that quote nothing, or a cut, pass."""
        code = finding.code
        if not code or code.endswith("..."):
            return True
        return self.module.code_for_node(node).strip() == code

    def replace(self, old: cst.CSTNode, new: cst.CSTNode | cst.RemovalSentinel) -> Edit | None:
        """The whole-line edit that turns this file's text into the text with `old` replaced.

        Only the innermost statement holding `old` is code-generated, at its own indentation
        (a whole module per finding is slow on large files); the whole module when that
        statement does not render back to its own lines.
        """
        stmt = old if isinstance(old, cst.BaseStatement) else self.ancestor(old, cst.BaseStatement)
        if stmt is not None and stmt in self.positions:
            edit = self._replace_in(stmt, old, new)
            if edit is not None:
                return edit
        changed = self.module.deep_replace(old, new)
        return line_edit(self.text, changed.code) if isinstance(changed, cst.Module) else None

    def _replace_in(self, stmt: cst.BaseStatement, old: cst.CSTNode, new) -> Edit | None:
        span = self.positions[stmt]
        starts = self._starts()
        begin = to_offset(starts, span.start.line, 1)
        indent = self.text[begin:begin + span.start.column]
        if indent.strip():
            return None  # not at the start of its line (`if x: stmt`)
        old_text = self.text[begin:to_offset(starts, span.end.line + 1, 1)]
        if self._render(stmt, indent) != old_text:
            return None
        changed = new if stmt is old else stmt.deep_replace(old, new)
        if isinstance(changed, cst.RemovalSentinel):
            new_text = ""
        elif isinstance(changed, cst.BaseStatement):
            new_text = self._render(changed, indent)
        else:
            return None
        edit = line_edit(old_text, new_text)
        if edit is None:
            return None
        shift = span.start.line - 1
        return Edit(edit.line + shift, edit.column, edit.end_line + shift, edit.end_column, edit.text)

    def _render(self, stmt: cst.BaseStatement, indent: str) -> str:
        """`stmt` (without the blank and comment lines above it) as code at `indent`."""
        from libcst._nodes.internal import CodegenState

        state = CodegenState(default_indent=self.module.default_indent, default_newline=self.module.default_newline,
                             indent_tokens=[indent] if indent else [])
        stmt.with_changes(leading_lines=())._codegen(state)
        return "".join(state.tokens)

    def _starts(self) -> list[int]:
        if self._line_starts is None:
            self._line_starts = line_starts(self.text)
        return self._line_starts


class _ParentCollector(cst.CSTVisitor):
    """Records each visited node's parent: the enclosing node on the walk's stack."""

    def __init__(self) -> None:
        super().__init__()
        self.parents: dict[cst.CSTNode, cst.CSTNode] = {}
        self._stack: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self._stack:
            self.parents[node] = self._stack[-1]
        self._stack.append(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self._stack.pop()


def parents_under(root: cst.CSTNode) -> dict[cst.CSTNode, cst.CSTNode]:
    """The parent of every node below `root` (`root` itself has none here): the map libcst's
    ParentNodeProvider gives, from one walk. The provider, resolved through a MetadataWrapper,
    costs about 6 times as much on one class member (its batched visitor collects the visitor's
    methods with `inspect` for each wrapper, and it asks each node for its children again)."""
    collector = _ParentCollector()
    root.visit(collector)
    return collector.parents


def load(path: Path) -> SourceFile | None:
    """Parse `path` for fixing (the static pass's tree when it checked the unchanged file in this
    process); None when it cannot be read or parsed (nothing is fixed there)."""
    parsed = parsed_again(path)
    if isinstance(parsed, Finding):
        return None
    tops, members = _statement_lines(parsed.module, parsed.source)
    return SourceFile(path, parsed.data, parsed.module, parsed.source, tops, members)


def _statement_lines(module: cst.Module, text: str) -> tuple[list[tuple[int, int]], dict[int, list[tuple[int, int]]]]:
    """(first line, last line) of each top-level libcst statement, and of each body statement
    of the top-level classes (by the class's index), from CPython's ast (cheap): decorators
    included, the blank and comment lines above excluded. Empty when the trees do not line up
    (then positions are resolved for the whole statement, or the whole module)."""
    import ast

    try:
        body = ast.parse(text).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return [], {}
    tops = _lines(list(module.body), body)
    members: dict[int, list[tuple[int, int]]] = {}
    if tops:
        k = 0
        for i, stmt in enumerate(module.body):
            n = len(stmt.body) if isinstance(stmt, cst.SimpleStatementLine) else 1
            if isinstance(stmt, cst.ClassDef) and isinstance(stmt.body, cst.IndentedBlock):
                ranges = _lines(list(stmt.body.body), body[k].body)
                if ranges:
                    members[i] = ranges
            k += n
    return tops, members


def _lines(statements: list[cst.BaseStatement], nodes: list) -> list[tuple[int, int]]:
    """(first, last) line per libcst statement from the matching ast statements, or []."""
    out, k = [], 0
    for stmt in statements:
        n = len(stmt.body) if isinstance(stmt, cst.SimpleStatementLine) else 1
        group = nodes[k:k + n]
        k += n
        if len(group) != n:
            return []
        decorators = getattr(group[0], "decorator_list", [])
        first = min([group[0].lineno, *(d.lineno for d in decorators)])
        out.append((first, group[-1].end_lineno or group[-1].lineno))
    return out if k == len(nodes) else []


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
