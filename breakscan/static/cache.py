"""Per-file results of the static pass, keyed by content hash, in the user cache directory.

Two tables in one pickle file per project root: phase A index entries by (path, content
digest), and phase B findings by (path, key) where the key hashes the file's digest, its
compile regions and chains, the project's class/disable summary, the active rules, and
breakscan's version. A corrupt, foreign or unreadable cache is ignored and rewritten.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from pathlib import Path
from typing import Any

from breakscan import __version__

FORMAT = 1


def code_version() -> str:
    """Digest of the code whose output is cached (the static pass, findings, catalog loader):
    a cache written by other code is foreign, even under the same version number."""
    here = Path(__file__).resolve().parent
    digest = hashlib.blake2b(__version__.encode(), digest_size=12)
    for path in sorted([*here.glob("*.py"), here.parent / "findings.py", here.parent / "catalog.py"]):
        try:
            digest.update(path.read_bytes())
        except OSError:
            pass
    return digest.hexdigest()


def cache_dir() -> Path:
    """`$BREAKSCAN_CACHE_DIR`, else the platform's user cache directory (platformdirs)."""
    override = os.environ.get("BREAKSCAN_CACHE_DIR")
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_cache_dir("breakscan", appauthor=False))


def _digest(value: Any) -> str:
    """Digest of a structure of tuples/strings/numbers; `repr`, not pickle, whose bytes depend
    on object identity (its memo), so equal values always give equal keys."""
    return hashlib.blake2b(repr(value).encode(), digest_size=20).hexdigest()


class Cache:
    """Load on creation, `save()` once at the end (atomically). Never raises on bad cache data."""

    def __init__(self, root: Path, directory: Path | None = None) -> None:
        self.directory = directory or cache_dir()
        self.path = self.directory / f"{hashlib.blake2b(str(root.resolve()).encode(), digest_size=10).hexdigest()}.pickle"
        self.index: dict[str, Any] = {}
        self.checks: dict[str, tuple[str, list]] = {}
        self._dirty = False
        self._types: tuple[int, str] | None = None
        self._rules: tuple[int, str] | None = None
        self._load()

    def _load(self) -> None:
        try:
            with open(self.path, "rb") as handle:
                data = pickle.load(handle)
            if (isinstance(data, dict) and data.get("format") == FORMAT
                    and data.get("breakscan") == code_version()):
                self.index, self.checks = dict(data["index"]), dict(data["checks"])
        except Exception:  # corrupt, truncated, foreign, unreadable: start afresh
            self.index, self.checks = {}, {}

    # phase A -----------------------------------------------------------------------------
    def get_index(self, path: Path):
        """The cached FileIndex of `path` if its content is unchanged, else None."""
        from breakscan.static.engine import file_digest

        entry = self.index.get(str(path))
        if entry is None:
            return None
        try:
            digest = file_digest(path.read_bytes())
        except OSError:
            return None
        return entry if getattr(entry, "digest", None) == digest else None

    def put_index(self, entry) -> None:
        """Remember a FileIndex (phase A result)."""
        if entry.digest:
            self.index[str(entry.path)] = entry
            self._dirty = True

    # phase B -----------------------------------------------------------------------------
    def check_key(self, digest: str, regions: list, index, rules: list, extra: object = ()) -> str:
        """The key of a file's findings; see the module docstring. `extra`: more inputs of the
        file's findings (its regions' Dynamo settings), hashed by repr."""
        if self._types is None or self._types[0] != id(index):
            self._types = (id(index), _digest(_types_summary(index)))
        if self._rules is None or self._rules[0] != id(rules):
            self._rules = (id(rules), _digest(sorted(
                (r.id, repr(r.match), r.message, r.severity.value, r.kind.value, r.fix, r.gb_ids, r.silenced_by)
                for r in rules)))
        own = sorted((r.function.qualname, r.function.occurrence, r.chain) for r in regions)
        return _digest((digest, own, self._types[1], self._rules[1], __version__, extra))

    def get_findings(self, path: str, key: str) -> list | None:
        """Cached findings of `path` under `key`, or None."""
        entry = self.checks.get(path)
        return list(entry[1]) if entry and entry[0] == key else None

    def put_findings(self, path: str, key: str, findings: list) -> None:
        """Remember a file's findings under `key`."""
        self.checks[path] = (key, list(findings))
        self._dirty = True

    def save(self) -> None:
        """Write the cache atomically if it changed; an unwritable directory is ignored."""
        if not self._dirty:
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".cache.", dir=self.directory)
            with os.fdopen(fd, "wb") as handle:
                pickle.dump({"format": FORMAT, "breakscan": code_version(), "index": self.index,
                             "checks": self.checks}, handle, protocol=4)
            os.replace(tmp, self.path)
            self._dirty = False
        except OSError:
            pass


def _types_summary(index) -> list:
    """What other files contribute to a file's findings: classes, their attributes, disables."""
    out = []
    for name in sorted(index.modules):
        module = index.modules[name]
        for cls in module.classes.values():
            out.append((cls.qualname, tuple(cls.bases), tuple(sorted(cls.methods)),
                        tuple(sorted(cls.tensor_attrs)), tuple(sorted(cls.scalar_attrs)),
                        tuple(sorted(cls.numeric_attrs)), tuple(sorted(cls.buffer_attrs)), tuple(sorted((k, tuple(v)) for k, v in cls.submodules.items()))))
        out.append((name, tuple(sorted(module.disabled))))
    return out
