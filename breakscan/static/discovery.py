"""Find the Python files to scan under the given paths, honouring excludes and `.gitignore`."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pathspec

DEFAULT_EXCLUDES = (".git", ".hg", ".svn", "__pycache__", ".venv", "venv", ".tox", ".nox",
                    "node_modules", "build", "dist", ".mypy_cache", ".pytest_cache", ".ruff_cache",
                    ".ipynb_checkpoints")  # Jupyter's autosaved copies of notebooks


class MissingPathError(FileNotFoundError):
    """A path given on the command line does not exist."""


def _spec(lines: list[str]) -> pathspec.PathSpec:
    """Gitignore-style patterns; pathspec is imported here, when a directory is walked (a run on
    files named one by one never needs it)."""
    import pathspec

    # pathspec >= 0.12.2 names the git flavour "gitignore"; older releases only "gitwildmatch".
    kind = "gitignore" if "gitignore" in pathspec.util._registered_patterns else "gitwildmatch"
    return pathspec.PathSpec.from_lines(kind, lines)


def _gitignore(root: Path) -> pathspec.PathSpec | None:
    ignore = root / ".gitignore"
    try:
        lines = ignore.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return _spec(lines)


def iter_python_files(paths: Iterable[Path], *, root: Path, exclude: Iterable[str] = (),
                      respect_gitignore: bool = True) -> Iterator[Path]:
    """Yield absolute paths of `.py`/`.pyi` files and `.ipynb` notebooks under `paths`, sorted
    within each directory.

    A file named explicitly is always yielded (even if excluded), as ruff and mypy do.
    `exclude` holds gitignore-style patterns relative to `root`. Symlink loops are cut by
    tracking visited real directories. Raises MissingPathError for a path that does not exist.
    """
    specs: tuple | None = None  # (user's, .gitignore's), made at the first directory
    seen: set[Path] = set()
    for given in paths:
        path = Path(given)
        if not path.exists() and not path.is_symlink():
            raise MissingPathError(str(given))
        path = path.absolute()
        if not path.is_dir():
            if path not in seen:
                seen.add(path)
                yield path
            continue
        if specs is None:
            specs = (_spec(list(exclude)) if exclude else None, _gitignore(root) if respect_gitignore else None)
        yield from _walk(path, root, *specs, seen)


def _excluded(path: Path, root: Path, specs: tuple, is_dir: bool) -> bool:
    if not any(spec is not None for spec in specs):  # no patterns (no .gitignore): nothing to match
        return False
    try:
        rel = path.relative_to(root).as_posix()
    except ValueError:
        rel = path.name
    if is_dir:
        rel += "/"
    return any(spec is not None and spec.match_file(rel) for spec in specs)


def _walk(top: Path, root: Path, user_spec, git_spec, seen: set[Path]) -> Iterator[Path]:
    """Python files under `top`. A directory that cannot be listed is yielded itself, so that the
    static pass reports it (BRK901 "cannot read directory") instead of silently skipping its files;
    FIFOs, sockets and devices named `*.py` are skipped (reading one could block forever)."""
    visited: set[str] = set()
    unreadable: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(top, followlinks=True,
                                                onerror=lambda err: unreadable.append(Path(err.filename))):
        while unreadable:
            broken = unreadable.pop()
            if broken not in seen:
                seen.add(broken)
                yield broken
        real = os.path.realpath(dirpath)
        if real in visited:  # a symlink loop
            dirnames[:] = []
            continue
        visited.add(real)
        here = Path(dirpath)
        dirnames[:] = sorted(
            d for d in dirnames
            if d not in DEFAULT_EXCLUDES and not d.endswith(".egg-info")
            and not _excluded(here / d, root, (user_spec, git_spec), True)
        )
        for name in sorted(filenames):
            if not name.endswith((".py", ".pyi", ".ipynb")):  # notebooks: their code cells (breakscan.notebook)
                continue
            path = here / name
            if path in seen or _excluded(path, root, (user_spec, git_spec), False) or _special(path):
                continue
            seen.add(path)
            yield path
    for broken in unreadable:  # the top itself, or the last directories walked
        if broken not in seen:
            seen.add(broken)
            yield broken


def _special(path: Path) -> bool:
    """A FIFO, socket or device (not a regular file, a directory or a dangling link)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False  # dangling symlink or unreadable: the static pass reports it
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))
