"""Where the dynamic pass finds a file's examples, and how it names the file when importing it.

Parent and child share this module (it imports neither torch nor anything of breakscan's):

- `parse_entry` / `check_entry`: an entry `FILE:FUNC` (`--entry`, or an item of
  `[tool.breakscan] entries`) as an absolute file and a function name, checked before anything
  runs, so that a typo is a usage error (exit 2) rather than a BRK902 finding.
- `package_module`: the dotted name a file inside a package is imported under, found as pytest's
  default `prepend` import mode does (walk up the directories holding an `__init__.py`), so that
  the file's relative imports (`from .layers import X`) work.
"""

from __future__ import annotations

import ast
import warnings
from dataclasses import dataclass
from pathlib import Path

DEFAULT_FUNCTION = "breakscan_examples"


class EntryError(ValueError):
    """An entry whose file or function does not exist; the CLI exits with status 2."""


@dataclass(frozen=True)
class Entry:
    """An examples function: `path` (absolute) and `function` (a name, or `Class.name`); `text` as written."""

    path: Path
    function: str
    text: str


def parse_entry(text: str, base: Path) -> Entry:
    """`FILE:FUNC` (or `FILE`, meaning its `breakscan_examples`) with FILE relative to `base`.

    The function is what follows the last colon when that is a dotted name, so a Windows
    drive (`C:\\m.py`) is part of the file. Nothing is read from disk.
    """
    file, sep, func = text.rpartition(":")
    if not sep or not file or not all(part.isidentifier() for part in func.split(".")):
        file, func = text, DEFAULT_FUNCTION
    path = Path(file).expanduser()
    return Entry(path=path if path.is_absolute() else (base / path).absolute(), function=func, text=text)


def check_entry(entry: Entry) -> None:
    """Raise EntryError unless the entry's file exists and binds the function's name at top level.

    Read with CPython's parser, never imported. A file that may bind names the parser cannot
    see (a star import, a module `__getattr__`) or that does not parse passes: importing it
    tells (a BRK902 / BRK901 finding).
    """
    if not entry.path.exists():
        raise EntryError(f"entry {entry.text!r}: file {entry.path} does not exist")
    if not entry.path.is_file():
        raise EntryError(f"entry {entry.text!r}: {entry.path} is not a file")
    if entry.path.suffix == ".ipynb":
        raise EntryError(f"entry {entry.text!r}: the dynamic pass does not run notebooks; run their cells "
                         "under %%breakscan in Jupyter (README, \"Jupyter notebooks\")")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(entry.path.read_bytes())
    except (SyntaxError, ValueError, RecursionError, MemoryError, OSError):
        return
    names = top_level_names(tree)
    head = entry.function.split(".")[0]
    if names is not None and head not in names:
        raise EntryError(f"entry {entry.text!r}: {entry.path.name} defines no top-level {head!r}")


def top_level_names(tree: ast.Module) -> set[str] | None:
    """Names a module binds in its own namespace; None when it may bind unseen names.

    Counts `def`/`class`, assignment targets (walrus included), imports, `except ... as`, and
    names a function declares `global`. Over-counts comprehension variables (harmless here:
    the check only refuses names never bound).
    """
    binder = _Binder()
    binder.visit(tree)
    return None if binder.opaque or "__getattr__" in binder.names else binder.names


class _Binder(ast.NodeVisitor):
    """Collects module-level bindings without entering function or class bodies."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.opaque = False

    def _scope(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        self.names.add(node.name)
        for inner in ast.walk(node):
            if isinstance(inner, ast.Global):
                self.names.update(inner.names)

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _scope

    def visit_Lambda(self, node: ast.Lambda) -> None:  # its parameters are its own
        return

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Store):
            self.names.add(node.id)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self.names.add(node.name)
        self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        self.names.update(a.asname or a.name.split(".")[0] for a in node.names)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if any(a.name == "*" for a in node.names):
            self.opaque = True
        self.names.update(a.asname or a.name for a in node.names)


def package_module(path: Path) -> tuple[Path, str] | None:
    """(directory to put on `sys.path`, dotted module name) of a file inside a package, else None.

    As pytest's `prepend` import mode (its `resolve_package_path`): go up while the directory
    holds an `__init__.py`; the first one that does not is the package's parent.
    `pkg/sub/model.py` → (parent of `pkg`, `pkg.sub.model`); `pkg/__init__.py` → `pkg`. None for
    a file beside no `__init__.py` (imported by path, its directory on `sys.path`) or with a
    name that is no identifier.
    """
    parts = [] if path.name == "__init__.py" else [path.stem]
    if parts and not path.stem.isidentifier():
        return None
    directory = path.parent
    while (directory / "__init__.py").is_file() and directory.name.isidentifier():
        parts.insert(0, directory.name)
        directory = directory.parent
    if directory == path.parent and path.name != "__init__.py":
        return None
    return (directory, ".".join(parts)) if parts else None
