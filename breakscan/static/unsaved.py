"""Editors' unsaved texts, read in place of the disk (the language server's open documents).

The static pass, its cache checks, suppression comments and the rewrites read every source
file through `read_bytes`: inside `editor_texts({...})` the files an editor holds open read as
the editor's text, every other file as the disk's. Outside it nothing changes (the CLI never
sets any). Process-wide, not per thread: the language server runs one scan at a time.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

_TEXTS: dict[str, bytes] = {}


def read_bytes(path: str | Path) -> bytes:
    """The bytes of `path`: the editor's text when `editor_texts` holds it, else the file's.

    Raises OSError as `Path.read_bytes` does (only for a file read from the disk).
    """
    data = _TEXTS.get(str(path))
    return data if data is not None else Path(path).read_bytes()


def held(path: str | Path) -> bool:
    """Whether `path` reads as an editor's text now."""
    return str(path) in _TEXTS


@contextmanager
def editor_texts(texts: Mapping[str, bytes]) -> Iterator[None]:
    """Within the block, each absolute path (str, as discovery yields it) in `texts` reads as
    its bytes (UTF-8 text from the editor). Restores the previous texts on exit."""
    saved = dict(_TEXTS)
    _TEXTS.update(texts)
    try:
        yield
    finally:
        _TEXTS.clear()
        _TEXTS.update(saved)
