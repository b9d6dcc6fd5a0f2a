"""Source positions for the few nodes that produced findings, without libcst's PositionProvider.

PositionProvider code-generates the whole module (costlier than parsing it). Instead, CPython's
`ast` (a C parser, a fraction of libcst's parse time) gives positions, and each flagged libcst
node is matched to the ast node with the same source text inside the same function (the
functions of both trees correspond one to one in pre-order). Anything unmatched falls back to
PositionProvider, so positions are always exact.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from breakscan.static.index import child_nodes
from breakscan.static.syntax import dotted_name
from breakscan.static.walk import child_list, iter_functions

_SPACE = re.compile(r"\s+")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")  # lines as CPython counts them


@dataclass(frozen=True)
class Span:
    """1-based line and column (code points) of a node's start; end column exclusive."""

    line: int
    column: int
    end_line: int
    end_column: int


# A libcst expression class -> the ast class of the same source text (others: no filter).
_AST_KIND: dict[type, type] = {cst.Call: ast.Call, cst.Attribute: ast.Attribute, cst.Subscript: ast.Subscript,
                               cst.Comparison: ast.Compare, cst.Name: ast.Name, cst.UnaryOperation: ast.UnaryOp,
                               cst.BinaryOperation: ast.BinOp}


# Fields in source order where libcst's dataclass order differs (`body` before `decorators`...).
_SOURCE_FIELDS: dict[type, tuple[str, ...]] = {
    cst.FunctionDef: ("decorators", "name", "params", "returns", "body"),
    cst.ClassDef: ("decorators", "name", "bases", "keywords", "body"),
    cst.ExceptHandler: ("type", "name", "body"),
    cst.IfExp: ("body", "test", "orelse"),
    cst.Parameters: ("posonly_params", "params", "star_arg", "kwonly_params", "star_kwarg"),
    cst.MatchCase: ("pattern", "guard", "body"),
}


def _source_order(root: cst.CSTNode) -> list[cst.CSTNode]:
    """`root` and its descendants (walk.children's nodes) in source order, parents first."""
    out: list[cst.CSTNode] = []
    stack = [root]
    while stack:
        current = stack.pop()
        out.append(current)
        names = _SOURCE_FIELDS.get(type(current))
        if names is None:
            kids = child_list(current)
        else:
            kids = []
            for name in names:
                value = getattr(current, name, None)
                if isinstance(value, (list, tuple)):
                    kids.extend(v for v in value if isinstance(v, cst.CSTNode))
                elif isinstance(value, cst.CSTNode):
                    kids.append(value)
        kids.reverse()
        stack.extend(kids)
    return out


def _signature(node: cst.CSTNode) -> object:
    """A cheap part of a node's text (a call's callee, an attribute's name): nodes whose
    signatures differ cannot have the same text."""
    if isinstance(node, cst.Call):
        return dotted_name(node.func) or type(node.func)
    if isinstance(node, cst.Attribute):
        return node.attr.value
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Subscript):
        return dotted_name(node.value) or type(node.value)
    if isinstance(node, cst.Comparison):
        return tuple(type(c.operator) for c in node.comparisons)
    if isinstance(node, (cst.UnaryOperation, cst.BinaryOperation)):
        return type(node.operator)
    return None


def _norm(text: str) -> str:
    text = _SPACE.sub("", text)
    while text.startswith("(") and text.endswith(")") and _balanced(text[1:-1]):
        text = text[1:-1]
    return text


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += ch == "("
        depth -= ch == ")"
        if depth < 0:
            return False
    return depth == 0


class Locator:
    """Finds spans of libcst nodes of one module; see the module docstring."""

    def __init__(self, module: cst.Module, source: str) -> None:
        self.module = module
        self.source = source
        self._lines: list[bytes] | None = None
        self._ast_functions: list[ast.AST] | None = None
        self._cst_functions: dict[int, int] | None = None
        self._segments: dict[int, dict[str, list[Span]]] = {}
        self._snippets: dict[tuple[int, frozenset[type] | None], dict[str, list[Span]] | None] = {}
        self._text_lines: list[str] | None = None
        self._fallback: dict | None = None
        self._function_positions: dict[int, tuple[dict, int] | None] = {}

    def _prepare(self) -> bool:
        if self._ast_functions is not None:
            return bool(self._ast_functions) or True
        try:
            tree = ast.parse(self.source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            self._ast_functions = []
            self._cst_functions = {}
            return False
        self._lines = [line.encode("utf-8") for line in self.source.splitlines(keepends=True)]
        self._ast_functions = list(_ast_functions(tree))
        cst_functions = list(iter_functions(self.module))
        self._cst_functions = {id(fn): i for i, fn in enumerate(cst_functions)}
        if len(cst_functions) != len(self._ast_functions):
            self._cst_functions = {}
        return True

    def spans(self, hits: list[tuple[cst.CSTNode, cst.FunctionDef, tuple[int, int, int] | None]]) -> list[Span]:
        """Spans for (node, enclosing region function, its (first line, last line, indent)
        from the ast index, or None) triples, in order."""
        seen: dict[tuple[int, str], int] = defaultdict(int)
        texts = [_norm(self.module.code_for_node(_expr_of(node))) for node, _, _ in hits]
        # The k-th hit with a text is its k-th occurrence only when every occurrence is a hit
        # (`if flag:` flags a name that also occurs as `flag = ...`): otherwise ask libcst.
        wanted: dict[tuple[int, str], int] = defaultdict(int)
        for (_, function, _), text in zip(hits, texts):
            wanted[(id(function), text)] += 1
        # the ast classes the function's hits can match (None: any), so that the snippet's
        # segments are cut only for nodes of those classes (most of a function is other nodes)
        kinds: dict[int, frozenset[type] | None] = {}
        for node, function, _ in hits:
            kind = _AST_KIND.get(type(_expr_of(node)))
            known = kinds.get(id(function), frozenset())
            kinds[id(function)] = None if kind is None or known is None else known | {kind}
        out = []
        for (node, function, extent), text in zip(hits, texts):
            span = None
            if isinstance(node, cst.BooleanOperation):
                # `a and b` inside `a and b and c` has no ast node of its own (ast flattens the
                # chain), so its text would match another `a and b` of the function: ask libcst.
                out.append(self._slow(node, function, extent))
                continue
            snippet = self._snippet_segments(id(function), extent, kinds[id(function)]) if extent else None
            if snippet is not None:
                candidates = snippet.get(text, [])
                if len(candidates) > wanted[(id(function), text)]:
                    k = self._occurrence(node, function, text, len(candidates))
                    out.append(candidates[k] if k is not None else self._slow(node, function, extent))
                    continue
                k = seen[(-id(function), text)]
                if k < len(candidates):
                    seen[(-id(function), text)] += 1
                    out.append(candidates[k])
                    continue
            self._prepare()
            index = self._cst_functions.get(id(function)) if self._cst_functions else None
            if index is not None:
                candidates = self._function_segments(index).get(text, [])
                k = seen[(index, text)]
                if k < len(candidates) <= wanted[(id(function), text)]:
                    span = candidates[k]
                    seen[(index, text)] += 1
            out.append(span or self._slow(node, function, extent))
        return out

    def _occurrence(self, node: cst.CSTNode, function: cst.FunctionDef, text: str, count: int) -> int | None:
        """k where `node` is the k-th node of its class with the text `text` in `function`, in
        source order; None unless the function holds exactly `count` of them (the ast nodes of
        that text: then the k-th of those, by position, is `node`). Cheaper than PositionProvider
        over the function where a flagged text occurs more often than it is flagged."""
        cls = type(node)
        mark = _signature(node)
        k = 0
        seen = None
        for other in _source_order(function):
            if other is node:
                seen = k
                k += 1
            elif type(other) is cls and _signature(other) == mark and _norm(self.module.code_for_node(other)) == text:
                k += 1
        return seen if k == count else None

    def _snippet_segments(self, function: int, extent: tuple[int, int, int],
                          kinds: frozenset[type] | None = None) -> dict[str, list[Span]] | None:
        """Segments of one function parsed alone: its lines, de-indented (cheaper than the file).
        `kinds`: only nodes of these ast classes (None: every expression and statement)."""
        key = (function, kinds)
        if key in self._snippets:
            return self._snippets[key]
        first, last, indent = extent
        if self._text_lines is None:
            self._text_lines = _LINE.findall(self.source)
        lines = self._text_lines[first - 1:last]
        shifted = [line[:indent].strip() == "" and len(line) > indent for line in lines]
        body = "".join(line[indent:] if cut else line for line, cut in zip(lines, shifted))
        result: dict[str, list[Span]] | None = None
        try:
            tree = ast.parse(body)
            root = tree.body[0] if len(tree.body) == 1 else None
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            root = None
        if isinstance(root, (ast.FunctionDef, ast.AsyncFunctionDef)):
            blines = [line.encode("utf-8") for line in _LINE.findall(body)]
            result = defaultdict(list)
            for node in _preorder(root):
                if kinds is not None and type(node) not in kinds:
                    continue
                if node is root or not isinstance(node, (ast.expr, ast.stmt)) or node.end_lineno is None:
                    continue
                if isinstance(node, ast.Expr):
                    continue  # an expression statement has its expression's span: count it once
                found = _segment_of(blines, node)
                if found is None:
                    continue
                raw, (l1, c1, l2, c2) = found
                span = Span(first - 1 + l1, c1 + (indent if shifted[l1 - 1] else 0),
                            first - 1 + l2, c2 + (indent if shifted[l2 - 1] else 0))
                result[_norm(raw)].append(span)
            for spans in result.values():
                spans.sort(key=lambda sp: (sp.line, sp.column))
        self._snippets[key] = result
        return result

    def _function_segments(self, index: int) -> dict[str, list[Span]]:
        cached = self._segments.get(index)
        if cached is None:
            cached = defaultdict(list)
            seen: set[tuple[str, Span]] = set()
            fn = self._ast_functions[index]
            for node in _preorder(fn):
                if isinstance(node, (ast.expr, ast.stmt)) and node is not fn and hasattr(node, "end_lineno"):
                    segment = self._segment(node)
                    key = (_norm(segment[0]), segment[1]) if segment is not None else None
                    if key is not None and key not in seen:
                        seen.add(key)  # an expression statement and its expression share one span
                        cached[key[0]].append(segment[1])
            for spans in cached.values():
                spans.sort(key=lambda s: (s.line, s.column))
            self._segments[index] = cached
        return cached

    def _segment(self, node: ast.AST) -> tuple[str, Span] | None:
        assert self._lines is not None
        found = _segment_of(self._lines, node)
        return None if found is None else (found[0], Span(*found[1]))

    def _slow(self, node: cst.CSTNode, function: cst.FunctionDef | None = None,
              extent: tuple[int, int, int] | None = None) -> Span:
        """libcst's own position of `node`: from PositionProvider over the region function
        alone where its text is provably laid out as in the file, else over the whole module."""
        local = self._positions_in(function, extent) if function is not None and extent else None
        if local is not None:
            positions, delta = local
            pos = positions.get(node)
            if pos is not None:
                return Span(pos.start.line + delta, pos.start.column + 1, pos.end.line + delta, pos.end.column + 1)
        if self._fallback is None:
            self._fallback = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)
        pos = self._fallback[node]
        return Span(pos.start.line, pos.start.column + 1, pos.end.line, pos.end.column + 1)

    def _positions_in(self, function: cst.FunctionDef, extent: tuple[int, int, int]) -> tuple[dict, int] | None:
        """PositionProvider over the region function alone (`resolve_alone`) and the line shift
        to the file's lines; None where that cannot be proved exact, or the file has a lone CR
        (a line break PositionProvider does not count)."""
        key = id(function)
        if key not in self._function_positions:
            self._function_positions[key] = None
            if self._text_lines is None:
                self._text_lines = file_lines(self.source)
            if self.source.count("\r") == self.source.count("\r\n"):
                got = resolve_alone(self.module, function, extent[0], extent[1], self._text_lines, (PositionProvider,))
                if got is not None:
                    meta, delta, _ = got
                    self._function_positions[key] = (meta[PositionProvider], delta)
        return self._function_positions[key]


def file_lines(text: str) -> list[str]:
    """`text` split into lines as CPython counts them (CRLF, CR, LF), line ends kept."""
    return _LINE.findall(text)


def resolve_alone(module: cst.Module, stmt: cst.BaseStatement, first: int, last: int, lines: list[str],
                  providers: tuple) -> tuple[dict, int, int] | None:
    """libcst metadata for one statement of `module` without code-generating the whole module.

    `stmt` is wrapped in a module of its own (under an `if _:` block indented as it is in the
    file, so columns match) and `providers` are resolved there. Exact only when the generated
    lines of the statement equal the file's lines `first`..`last` (1-based, from CPython's ast:
    decorators included, leading comments not); None otherwise, and for a lone CR in them.
    Returns (metadata by provider, line shift to add to reach the file's lines, the first
    generated line that belongs to `stmt`). PositionProvider code-generates what it covers:
    the whole module costs more than parsing it, one statement a fraction of that.
    """
    if first < 1 or last < first or last > len(lines):
        return None
    if any(line.endswith("\r") for line in lines[first - 1:last]):
        return None
    head = lines[first - 1]
    ws = head[:len(head) - len(head.lstrip(" \t"))]
    wrapped = cst.If(test=cst.Name("_"), body=cst.IndentedBlock(body=[stmt], indent=ws)) if ws else stmt
    try:
        wrapper = MetadataWrapper(module.with_changes(body=[wrapped], header=[], footer=[]), unsafe_skip_copy=True)
        start = (1 if ws else 0) + len(getattr(stmt, "leading_lines", ()))  # generated lines before `first`
        if _LINE.findall(wrapper.module.code)[start:start + last - first + 1] != lines[first - 1:last]:
            return None
        return wrapper.resolve_many(providers), first - 1 - start, start + 1
    except Exception:  # a wrapper libcst refuses: the caller falls back to the whole module
        return None


def _segment_of(lines: list[bytes], node: ast.AST) -> tuple[str, tuple[int, int, int, int]] | None:
    """(source text, (line, column, end line, end column)) of an ast node; columns 1-based
    code points (ast gives UTF-8 byte offsets)."""
    l1, c1, l2, c2 = node.lineno, node.col_offset, node.end_lineno, node.end_col_offset
    if l2 is None or c2 is None or l1 > len(lines) or l2 > len(lines):
        return None
    if l1 == l2:
        raw = lines[l1 - 1][c1:c2]
    else:
        raw = lines[l1 - 1][c1:] + b"".join(lines[l1:l2 - 1]) + lines[l2 - 1][:c2]
    col = len(lines[l1 - 1][:c1].decode("utf-8", "replace")) + 1
    end_col = len(lines[l2 - 1][:c2].decode("utf-8", "replace")) + 1
    return raw.decode("utf-8", "replace"), (l1, col, l2, end_col)


def _expr_of(node: cst.CSTNode) -> cst.CSTNode:
    """The part of a node whose text ast positions describe (`with` items have no position)."""
    return node.item if isinstance(node, cst.WithItem) else node


def _ast_functions(tree: ast.AST):
    """Every (async) def in pre-order, walking statement lists only."""
    stack = [tree]
    while stack:
        current = stack.pop()
        if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield current
        nested = []
        for name in ("body", "orelse", "handlers", "finalbody", "cases"):
            value = getattr(current, name, None)
            if isinstance(value, list):
                nested.extend(v for v in value if isinstance(v, (ast.stmt, ast.excepthandler, ast.match_case)))
        stack.extend(reversed(nested))


def _preorder(node: ast.AST):
    """`node` and its descendants, parents first, in source order (without `ctx` markers)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(child_nodes(current)))
