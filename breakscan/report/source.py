"""Source lines of scanned files, for code frames, SARIF columns and fingerprints.

Files are decoded as Python does (PEP 263 coding cookie, UTF-8 BOM), with undecodable bytes
replaced, and split on the newlines Python's tokenizer knows (`\\n`, `\\r\\n`, `\\r`) only.
A missing or unreadable file has no lines; callers degrade gracefully.
"""

from __future__ import annotations

import io
import linecache
import tokenize
from pathlib import Path
from typing import TYPE_CHECKING

from breakscan.notebook import NotebookError, NotebookModule, is_notebook, json_positions, load, module_text

if TYPE_CHECKING:
    from breakscan.findings import Finding


def read_lines(path: str | Path) -> list[str] | None:
    """The file's lines without line endings, or None when it cannot be read. A notebook's
    lines are those of its code cells as one module (breakscan.notebook), as the static pass read them."""
    if is_notebook(path):
        text = module_text(path)
        return None if text is None else text.split("\n")
    try:
        raw = Path(path).read_bytes()
    except OSError:
        # Code IPython holds in memory (a Jupyter kernel's earlier cells, for `%%breakscan`); an
        # absolute name only, which linecache never looks up along sys.path.
        cached = linecache.getlines(str(path)) if Path(path).is_absolute() else []
        return [line.rstrip("\r\n") for line in cached] if cached else None
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    except SyntaxError:  # a bad coding cookie
        encoding = "utf-8"
    try:
        text = raw.decode(encoding, errors="replace")
    except LookupError:  # an unknown codec named in the cookie
        text = raw.decode("utf-8", errors="replace")
    text = text.removeprefix("\ufeff")
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


class SourceCache:
    """Reads each file once per report."""

    def __init__(self) -> None:
        self._files: dict[str, list[str] | None] = {}
        self._notebooks: dict[str, NotebookModule | None] = {}
        self._positions: dict[str, object] = {}

    def lines(self, path: str, cell: int | None = None) -> list[str] | None:
        """All lines of `path` (of its code cell `cell` for a notebook finding placed in a
        cell), or None when it cannot be read."""
        if cell is not None:
            found = self.notebook(path)
            code = found.cell(cell) if found is not None else None
            return list(code.lines) if code is not None else None
        if path not in self._files:
            self._files[path] = read_lines(path)
        return self._files[path]

    def line(self, path: str, number: int, cell: int | None = None) -> str | None:
        """Line `number` (1-based) of `path` (of cell `cell`), or None when it does not exist."""
        lines = self.lines(path, cell)
        if lines is None or not 1 <= number <= len(lines):
            return None
        return lines[number - 1]

    def notebook(self, path: str) -> NotebookModule | None:
        """The notebook at `path` as a module with its cells, or None (not a notebook, unreadable)."""
        if path not in self._notebooks:
            try:
                self._notebooks[path] = load(path) if is_notebook(path) else None
            except (OSError, NotebookError, ImportError):
                self._notebooks[path] = None
        return self._notebooks[path]

    def file_position(self, path: str, cell: int, line: int, column: int) -> tuple[int, int, str] | None:
        """Where `line`:`column` of notebook cell `cell` sits in the notebook's own JSON text:
        (line, column in code points, that JSON line's text), or None when unknown."""
        if path not in self._positions:
            found = self.notebook(path)
            try:
                text = Path(path).read_text(encoding="utf-8-sig") if found is not None else None
            except (OSError, UnicodeDecodeError):
                text = None
            self._positions[path] = json_positions(text, found) if text is not None else None
        positions = self._positions[path]
        at = positions.position(cell, line, column) if positions is not None else None
        return None if at is None else (at[0], at[1], positions.lines[at[0] - 1])


def span_parts(line: str, f: Finding) -> tuple[str, str, str]:
    """`line` split into before / the finding's span / after (code points, 1-based columns)."""
    start = min(max(f.column, 1) - 1, len(line))
    if f.end_line not in (None, f.line):
        end = len(line.rstrip())
    elif f.end_column is not None and f.end_column > f.column:
        end = f.end_column - 1
    else:
        end = start + 1
    return line[:start], line[start:max(end, start)], line[max(end, start):]
