"""Source lines of scanned files, for code frames, SARIF columns and fingerprints.

Files are decoded as Python does (PEP 263 coding cookie, UTF-8 BOM), with undecodable bytes
replaced, and split on the newlines Python's tokenizer knows (`\\n`, `\\r\\n`, `\\r`) only.
A missing or unreadable file has no lines; callers degrade gracefully.
"""

from __future__ import annotations

import io
import tokenize
from pathlib import Path


def read_lines(path: str | Path) -> list[str] | None:
    """The file's lines without line endings, or None when it cannot be read."""
    try:
        raw = Path(path).read_bytes()
    except OSError:
        return None
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

    def lines(self, path: str) -> list[str] | None:
        """All lines of `path`, or None when it cannot be read."""
        if path not in self._files:
            self._files[path] = read_lines(path)
        return self._files[path]

    def line(self, path: str, number: int) -> str | None:
        """Line `number` (1-based) of `path`, or None when the file or line does not exist."""
        lines = self.lines(path)
        if lines is None or not 1 <= number <= len(lines):
            return None
        return lines[number - 1]
