"""Reading scanned source the way Python does, for frames, columns and fingerprints."""

from __future__ import annotations

from pathlib import Path

import pytest

from breakscan.catalog import load_catalog
from breakscan.findings import Report
from breakscan.report import FORMATS, renderer
from breakscan.report.source import SourceCache, read_lines


def test_crlf_cr_and_bom_are_handled(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(b"\xef\xbb\xbfa = 1\r\nb = 2\rc = '\x0c'\n")
    assert read_lines(path) == ["a = 1", "b = 2", "c = '\x0c'", ""]


def test_coding_cookie_is_honoured(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_bytes("# -*- coding: latin-1 -*-\ns = 'é'\n".encode("latin-1"))
    assert read_lines(path)[1] == "s = 'é'"


def test_undecodable_bytes_and_missing_files_degrade(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(b"s = '\xff'\n")
    assert read_lines(path)[0] == "s = '\ufffd'"
    cache = SourceCache()
    assert cache.lines(str(tmp_path / "gone.py")) is None
    assert cache.line(str(path), 99) is None


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_renders_an_empty_report(tmp_path: Path, fmt: str) -> None:
    assert isinstance(renderer(fmt)(Report(root=tmp_path, findings=[]), load_catalog()), str)


def test_unknown_format_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown format"):
        renderer("xml")
