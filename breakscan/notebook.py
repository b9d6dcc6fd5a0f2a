"""Jupyter notebooks (`.ipynb`) as Python modules: the static pass scans a notebook's code cells
as one module, in cell order, and reports each finding at its cell and its line in that cell.

The module text holds every code cell's lines, one module line per cell line, so a module line
maps back to exactly one (cell, line); IPython-only lines become `pass` lines at their indent:
line magics (`%time f()`), shell escapes (`!pip install x`, `files = !ls`), help (`obj?`,
`?obj`) and the body of cell magics whose body is not Python (`%%bash`, `%%writefile`). A cell
that parses as Python is kept whole (a `%` in a string or an operator is never touched). A cell
that is still not Python is left out (`cell_error`, `left_out`: its lines become comments), so
the other cells are scanned and the static pass reports it at its line (BRK901).
Cells are numbered 1-based among all cells, markdown and raw ones included, in the order
nbformat lists them (not the execution count `[n]` Jupyter shows, which changes on each run).

Notebooks are read and written with nbformat (the Jupyter project's own reader): `--fix`
rewrites the code cells' sources and keeps outputs, metadata, attachments and cell ids.
"""

from __future__ import annotations

import ast
import bisect
import functools
import json
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path

SUFFIX = ".ipynb"
# Cell magics whose body is Python run by IPython in the kernel: scanned; any other cell magic's
# body (%%bash, %%writefile, %%html, ...) is not Python and becomes blank lines.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "breakscan", "debug"})
_ASSIGN_FROM_IPYTHON = re.compile(r"^[\w.\[\], ()*]+=\s*[!%]")  # `files = !ls`, `t = %timeit -o f()`
_HELP = re.compile(r"^(\?{1,2}\s*[\w.*]+|[\w.*]+\s*\?{1,2})\s*$")  # `f?`, `np.*load*?`, `??f`


class NotebookError(ValueError):
    """A notebook that cannot be read: not JSON, or not a notebook nbformat can read."""


def is_notebook(path: str | Path) -> bool:
    """Whether `path` names a Jupyter notebook (by its `.ipynb` suffix, as Jupyter does)."""
    return str(path).endswith(SUFFIX)


@dataclass(frozen=True)
class CellError:
    """Why a code cell is not Python: CPython's message, at a 1-based line and column of the cell."""

    line: int
    column: int
    message: str


@dataclass(frozen=True)
class Cell:
    """One code cell: its 1-based `index` among all cells, its first module line (1-based),
    its original source lines (no line endings), those lines as the module holds them (IPython
    lines replaced, `python_lines`) and whether its source ends with a newline."""

    index: int
    first: int
    lines: tuple[str, ...]
    module_lines: tuple[str, ...]
    trailing_newline: bool
    error: CellError | None = None  # not Python even without IPython's lines: left out of the module

    @property
    def end(self) -> int:
        """The module line after its last line."""
        return self.first + len(self.lines)


@dataclass
class NotebookModule:
    """A notebook's code cells as one module (`source`) and the map back to cells."""

    source: str
    cells: list[Cell] = field(default_factory=list)

    def cell_at(self, line: int) -> tuple[int, int]:
        """(cell index, line in that cell), both 1-based, of module `line`.

        A line past the last cell (an error at the end of the module) stays in the last code
        cell; a notebook without code has cell 1.
        """
        cells = [c for c in self.cells if c.lines]  # an empty cell holds no line
        if not cells:
            return (self.cells[0].index if self.cells else 1), max(line, 1)
        cell = cells[max(bisect.bisect_right([c.first for c in cells], line) - 1, 0)]
        return cell.index, max(line - cell.first + 1, 1)

    def cell(self, index: int) -> Cell | None:
        """The code cell numbered `index` (1-based among all cells), or None."""
        return next((c for c in self.cells if c.index == index), None)


def python_lines(source: str) -> list[str]:
    """A cell's lines with IPython-only lines replaced (see the module docstring); as many lines
    as the cell has, each code line unchanged."""
    lines = split_lines(source)
    if not lines:
        return []
    head = lines[0].lstrip()
    if head.startswith("%%"):
        name = head[2:].split(maxsplit=1)[0] if head[2:].strip() else ""
        if name not in PYTHON_CELL_MAGICS:
            return [""] * len(lines)
        return [""] + python_lines("\n".join(lines[1:]))
    if _parses("\n".join(lines)):
        return lines
    out: list[str] = []
    continued = False
    for line in lines:
        stripped = line.lstrip()
        if continued:  # a backslash continuation of an IPython line: blank (its `pass` is above)
            out.append("")
        elif _is_ipython_line(stripped):
            out.append(line[: len(line) - len(stripped)] + "pass")
        else:
            out.append(line)
        continued = (continued or _is_ipython_line(stripped)) and line.rstrip().endswith("\\")
    return out


def split_lines(source: str) -> list[str]:
    """A cell's lines, split where Python's tokenizer splits them (`\\n`, `\\r\\n`, `\\r`), the
    empty string after a final newline dropped."""
    lines = source.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _is_ipython_line(stripped: str) -> bool:
    if not stripped or stripped.startswith("#"):
        return False
    return (stripped.startswith(("%", "!")) or bool(_HELP.match(stripped))
            or bool(_ASSIGN_FROM_IPYTHON.match(stripped)))


def _parses(text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def cell_error(lines: list[str]) -> CellError | None:
    """Why a cell's module lines (`python_lines`) are not Python, or None when they are. Jupyter
    runs each cell on its own, so a cell that does not parse alone never ran as written."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse("\n".join(lines))
    except SyntaxError as err:
        line = err.lineno if isinstance(err.lineno, int) and 1 <= err.lineno <= max(len(lines), 1) else 1
        column = err.offset if isinstance(err.offset, int) and err.offset > 0 else 1
        return CellError(line, column, f"cannot parse: {err.msg}".splitlines()[0])
    except (ValueError, RecursionError, MemoryError) as exc:
        return CellError(1, 1, f"cannot parse: {exc}".splitlines()[0] if str(exc) else "cannot parse")
    return None


def left_out(lines: list[str]) -> list[str]:
    """An unparsable cell's lines as the module holds them: each a comment (`#` before it), so
    that the other cells are scanned, every line keeps its place, and a change to the cell still
    changes the module's text (the result cache keys on it)."""
    return ["#" + line for line in lines]


def read(data: bytes):
    """The notebook node nbformat reads from `data` (its own version kept: `NO_CONVERT`).

    Raises NotebookError when `data` is not a notebook nbformat can read. Validation problems
    (a missing cell id, an unknown field) are not errors: nbformat reads such notebooks too.
    """
    import nbformat

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # nbformat warns about validation and missing ids
            nb = nbformat.reads(data.decode("utf-8-sig"), as_version=nbformat.NO_CONVERT)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise NotebookError(f"not a notebook: {exc}") from exc
    except Exception as exc:  # nbformat's own reader errors (NotJSONError, bad version, ...)
        raise NotebookError(f"not a notebook nbformat can read: {type(exc).__name__}: {exc}") from exc
    if not isinstance(nb.get("cells"), list):
        raise NotebookError("not a notebook nbformat can read: no list of cells (nbformat 4 or later)")
    return nb


def to_module(nb) -> NotebookModule:
    """The code cells of notebook node `nb` as one module. A notebook whose kernel language is
    not Python (`metadata.language_info.name` / `kernelspec.language`) has no Python code."""
    meta = nb.get("metadata") or {}
    language = (meta.get("language_info") or {}).get("name") or (meta.get("kernelspec") or {}).get("language")
    cells: list[Cell] = []
    parts: list[str] = []
    line = 1
    if language in (None, "", "python"):
        for index, cell in enumerate(nb["cells"], start=1):
            if cell.get("cell_type") != "code":
                continue
            source = cell.get("source") or ""
            source = "".join(source) if isinstance(source, list) else str(source)
            module_lines = python_lines(source)
            original = split_lines(source)
            error = cell_error(module_lines)
            if error is not None:
                module_lines = left_out(original)
            cells.append(Cell(index, line, tuple(original), tuple(module_lines), source.endswith(("\n", "\r")),
                              error))
            parts.extend(text + "\n" for text in module_lines)
            line += len(module_lines)
    return NotebookModule("".join(parts), cells)


def load(path: str | Path) -> NotebookModule:
    """`path`'s code cells as one module. Raises OSError (unreadable) or NotebookError."""
    return to_module(read(Path(path).read_bytes()))


@functools.lru_cache(maxsize=8)
def converted(data: bytes) -> NotebookModule:
    """Notebook bytes `data` as one module, converted once per content: reading a notebook's
    module text and its left-out cells during one scan share it. Raises NotebookError; the
    result is shared, so callers must not change it."""
    return to_module(read(data))


def module_bytes(data: bytes) -> bytes:
    """The module text (UTF-8) of notebook bytes `data`; raises NotebookError."""
    return converted(data).source.encode("utf-8")


# --fix -----------------------------------------------------------------------------------------
def fixed_notebook(data: bytes, edits) -> bytes | None:
    """Notebook bytes `data` with `edits` (breakscan.findings.Edit, in module lines) applied to the
    sources of the cells they fall in; outputs, metadata, attachments and ids are kept.

    None when an edit spans two cells or touches a line IPython owns (a magic's `pass`): the
    notebook is then left as it is. A pure insertion at a cell's first line goes to the end of
    the code cell before it (the line after a cell's last import is the next cell's first).
    Written as nbformat writes notebooks (one-space indent, sorted keys, a final newline).
    """
    import nbformat

    from breakscan.findings import Edit
    from breakscan.fix.source import apply_edits

    nb = read(data)
    module = to_module(nb)
    per_cell: dict[int, list[Edit]] = {}
    for e in edits:
        placed = _in_cell(module, e)
        if placed is None:
            return None
        cell, local = placed
        per_cell.setdefault(cell.index, []).append(local)
    for cell in module.cells:
        local = per_cell.get(cell.index)
        if not local:
            continue
        text = "".join(line + "\n" for line in cell.lines)
        new = apply_edits(text, local)
        if not cell.trailing_newline:
            new = new.removesuffix("\n")
        nb["cells"][cell.index - 1]["source"] = new
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return nbformat.writes(nb).encode("utf-8") + b"\n"


def _in_cell(module: NotebookModule, e) -> tuple[Cell, object] | None:
    """The cell `e` falls in and `e` in that cell's lines; None when it spans cells or touches
    a replaced (IPython) line."""
    from breakscan.findings import Edit

    insertion = (e.line, e.column) == (e.end_line, e.end_column)
    for cell in module.cells:  # contiguous: a cell's `end` is the next one's `first`
        last = cell.end  # (cell.end, 1) is the cell's end: its text ends with a newline
        at_end = insertion and (e.line, e.column) == (last, 1)  # the earlier cell wins the boundary
        if not (cell.first <= e.line < last or at_end):
            continue
        if not ((e.end_line, e.end_column) <= (last, 1)):
            return None
        touched = range(e.line, min(e.end_line + (e.end_column > 1), last))
        if any(cell.lines[n - cell.first] != cell.module_lines[n - cell.first] for n in touched):
            return None
        shift = cell.first - 1
        return cell, Edit(e.line - shift, e.column, e.end_line - shift, e.end_column, e.text)
    return None


def cells_text(data: bytes) -> str:
    """The code cells of notebook bytes `data` as text for `--diff`: each cell's source under a
    `# %% cell N` line (Jupytext's "percent" cell marker, N as in findings). Raises NotebookError."""
    nb = read(data)
    out = []
    for index, cell in enumerate(nb["cells"], start=1):
        if cell.get("cell_type") == "code":
            source = cell.get("source") or ""
            source = "".join(source) if isinstance(source, list) else str(source)
            out.append(f"# %% cell {index}\n" + "".join(line + "\n" for line in split_lines(source)))
    return "".join(out)


# SARIF and GitHub annotations: positions in the .ipynb file's own text ---------------------------
_SOURCE_KEY = re.compile(r'^\s*"source":\s*\[\s*$')
_STRING_ITEM = re.compile(r'^\s*("(?:[^"\\]|\\.)*")\s*,?\s*$')


@dataclass
class JsonPositions:
    """Where each code-cell line sits in the notebook's JSON text (`lines`), when the cell's
    source is stored as nbformat writes it: a list of strings, one per line, one per JSON line."""

    lines: list[str]
    items: dict[tuple[int, int], tuple[int, int]] = field(default_factory=dict)  # (cell, line) -> (json line, offset)

    def position(self, cell: int, line: int, column: int) -> tuple[int, int] | None:
        """(line, column) in the JSON text, 1-based, column in code points, of the code point at
        `column` of `line` of `cell`; None when that line's place is unknown."""
        found = self.items.get((cell, line))
        if found is None:
            return None
        number, start = found
        return number, start + _raw_offset(self.lines[number - 1][start:], column - 1) + 1


def json_positions(text: str, module: NotebookModule) -> JsonPositions:
    """Match each code cell with the next `"source": [` list in `text` holding exactly its lines."""
    lines = text.split("\n")
    out = JsonPositions(lines)
    blocks = _source_blocks(lines)
    at = 0
    for cell in module.cells:
        for k in range(at, len(blocks)):
            decoded = [value for _, _, value in blocks[k]]
            if split_lines("".join(decoded)) == list(cell.lines) and len(decoded) >= len(cell.lines):
                for n, (number, start, _) in enumerate(blocks[k][: len(cell.lines)], start=1):
                    out.items[(cell.index, n)] = (number, start)
                at = k + 1
                break
    return out


def _source_blocks(lines: list[str]) -> list[list[tuple[int, int, str]]]:
    """Each `"source": [ ... ]` list: per item (JSON line number, offset after its quote, value)."""
    blocks: list[list[tuple[int, int, str]]] = []
    current: list[tuple[int, int, str]] | None = None
    for number, line in enumerate(lines, start=1):
        if current is None:
            if _SOURCE_KEY.match(line):
                current = []
            continue
        match = _STRING_ITEM.match(line)
        if match is None:
            blocks.append(current)
            current = None
            continue
        try:
            current.append((number, match.start(1) + 1, json.loads(match.group(1))))
        except ValueError:
            current = None
    return blocks


def _raw_offset(raw: str, count: int) -> int:
    """Characters of JSON string text `raw` (after its opening quote) that encode its first
    `count` code points (`\\n` is one code point in two characters, `\\ud83d\\ude00` one in 12)."""
    i = 0
    for _ in range(count):
        if i >= len(raw) or raw[i] == '"':
            break
        if raw[i] != "\\":
            i += 1
        elif raw[i + 1:i + 2] == "u":
            high = int(raw[i + 2:i + 6], 16)
            i += 12 if 0xD800 <= high < 0xDC00 and raw[i + 6:i + 8] == "\\u" else 6
        else:
            i += 2
    return i


def module_text(path: str | Path) -> str | None:
    """The module text of notebook `path` (what the static pass scanned), or None when it
    cannot be read: for the readers of source lines (suppressions, code frames, fingerprints)."""
    try:
        return load(path).source
    except (OSError, NotebookError, ImportError):
        return None


# reports: module lines -> cells -----------------------------------------------------------------
def in_cells(findings: list, cache: dict | None = None) -> list:
    """`findings` with those in notebooks placed in their cells: `cell` set, `line` and
    `end_line` counted in that cell, a rewrite's edits too (dropped when they leave the cell).

    The static pass, merge, suppressions, baselines and `--fix` all count a notebook's lines in
    its module (`to_module`); this runs once, when the report is written. Findings already
    placed (`cell` set), in other files or in unreadable notebooks are returned unchanged.
    """
    cache = {} if cache is None else cache
    out = []
    for f in findings:
        if f.cell is not None or not is_notebook(f.path):
            out.append(f)
            continue
        if f.path not in cache:
            try:
                cache[f.path] = load(f.path)
            except (OSError, NotebookError, ImportError):
                cache[f.path] = None
        module = cache[f.path]
        out.append(f if module is None else _placed(f, module))
    return out


def _placed(f, module: NotebookModule):
    from breakscan.findings import Rewrite

    cell, line = module.cell_at(f.line)
    shift = f.line - line
    end_line, end_column = f.end_line, f.end_column
    if end_line is not None and module.cell_at(end_line)[0] != cell:
        end_line, end_column = None, None  # a span reaching past its cell: its start only
    rewrite = f.rewrite
    if rewrite is not None:
        edits = [_in_cell(module, e) for e in rewrite.edits]
        rewrite = None if any(e is None or e[0].index != cell for e in edits) else Rewrite(
            rewrite.description, rewrite.safety, tuple(e[1] for e in edits))
    return f.replace(cell=cell, line=line, end_line=None if end_line is None else end_line - shift,
                     end_column=end_column, rewrite=rewrite)


def report_in_cells(report) -> None:
    """Place the notebook findings of `report` (shown, fixed and suppressed) in their cells."""
    cache: dict = {}
    report.findings = in_cells(report.findings, cache)
    report.fixed = in_cells(report.fixed, cache)
    report.suppressed = in_cells(report.suppressed, cache)
