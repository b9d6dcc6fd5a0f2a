"""Per-file results of the static pass, in one SQLite database in the user cache directory.

Rows keyed by each file's absolute path, read row by row so that a run reads only the entries
of the files it scans, however many files the cache has seen:

- `indexes`: phase A's FileIndex of a file, valid while the file's content digest and its
  dotted module name (which the `__init__.py` files above it decide) are unchanged;
- `checks`: phase B's findings of a file under a key hashing the file's digest, its compile
  regions and chains, the project's class/disable summary, the active rules (already filtered
  by the target torch version and the config's selection) and breakscan's version; a few keys
  per file, so scanning a few files (pre-commit) and the whole tree (CI) do not evict each other;
- `fixes`: the rewrites of a file's fixable findings (the report's `[*]` markers, SARIF fixes),
  keyed by the file's digest and the findings, so a warm text report needs no libcst either.

Every row records `code_version()`: rows written by other breakscan code are never read.
Not cached: the compile regions (computed over the whole project index each run) and the
cross-file skipped-frames pass (breakscan.static.frames: it follows other files' findings).

Kept small: each run re-checks a bounded batch of the rows least recently checked against the
disk and deletes those whose file is gone or changed since (and other code's rows unused for a
day); when the database outgrows its bound (`BREAKSCAN_CACHE_MAX_MB`, default 512) the least
recently used rows are evicted. WAL mode with a busy timeout: concurrent breakscan processes
(pre-commit runs hooks in parallel) each commit their rows in one transaction, losing none.
A corrupt database is replaced with a warning; an unwritable one disables the cache.
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
import sqlite3
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from breakscan import __version__
from breakscan.static import unsaved
from breakscan.static.module_globals import shared_kinds
from breakscan.static.torch_data import python_value_returns

FORMAT = 2  # schema version: the database file's name
DEFAULT_MAX_MB = 512
KEYS_PER_FILE = 4  # findings (and rewrites) kept per file: for different file sets, rule selections
SWEEP_ROWS = 500  # rows re-checked against the disk per run: a few ms
SWEEP_AGE_S = 24 * 3600  # a row is re-checked at most once a day; other code's rows live a day unused
TOUCH_AGE_S = 3600  # a hit refreshes its row's last use at most hourly (no write per warm run)
EVICT_TO = 0.8  # eviction brings the database down to this share of its bound
BUSY_TIMEOUT_S = 60.0  # wait this long for another process's write transaction
# SQLite answers SQLITE_BUSY at once, without waiting its busy timeout, in a few cases (in WAL
# mode: another connection cleaning up the WAL as it closes, or recovering it after a crash;
# sqlite.org/wal.html "Sometimes Queries Return SQLITE_BUSY"): such an answer is tried again a
# few times; a busy answer after the whole timeout is final.
BUSY_RETRIES = 5

_SCHEMA = """
CREATE TABLE IF NOT EXISTS indexes (
    path TEXT PRIMARY KEY, code TEXT NOT NULL, digest TEXT NOT NULL, name TEXT NOT NULL,
    mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL, entry BLOB NOT NULL,
    bytes INTEGER NOT NULL, used INTEGER NOT NULL, swept INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS indexes_used ON indexes (used);
CREATE INDEX IF NOT EXISTS indexes_swept ON indexes (swept);
CREATE TABLE IF NOT EXISTS checks (
    path TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL,
    bytes INTEGER NOT NULL, used INTEGER NOT NULL, PRIMARY KEY (path, key));
CREATE INDEX IF NOT EXISTS checks_used ON checks (used);
CREATE TABLE IF NOT EXISTS fixes (
    path TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL,
    bytes INTEGER NOT NULL, used INTEGER NOT NULL, PRIMARY KEY (path, key));
CREATE INDEX IF NOT EXISTS fixes_used ON fixes (used);
"""
_KEYED = ("checks", "fixes")  # tables of values per (path, key)


@functools.cache
def code_version() -> str:
    """Digest of the code whose output is cached (the static pass, rewrites, findings, catalog loader):
    rows written by other code are foreign, even under the same version number. Read once per process."""
    here = Path(__file__).resolve().parent
    digest = hashlib.blake2b(__version__.encode(), digest_size=12)
    for path in sorted([*here.rglob("*.py"), *(here.parent / "fix").glob("*.py"), here.parent / "findings.py",
                        here.parent / "catalog.py"]):
        try:
            digest.update(path.read_bytes())
        except OSError:
            pass
    return digest.hexdigest()


def cache_dir() -> Path:
    """`$BREAKSCAN_CACHE_DIR`, else the platform's user cache directory (platformdirs:
    `~/.cache/breakscan` on Linux, `~/Library/Caches/breakscan` on macOS)."""
    override = os.environ.get("BREAKSCAN_CACHE_DIR")
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_cache_dir("breakscan", appauthor=False))


def max_bytes_from_env() -> int:
    """The size bound in bytes: `$BREAKSCAN_CACHE_MAX_MB` (MiB, a positive number), else 512 MiB."""
    text = os.environ.get("BREAKSCAN_CACHE_MAX_MB", "")
    try:
        value = float(text)
    except ValueError:
        value = 0
    return int((value if value > 0 else DEFAULT_MAX_MB) * 1024 * 1024)


def _digest(value: Any) -> str:
    """Digest of a structure of tuples/strings/numbers; `repr`, not pickle, whose bytes depend
    on object identity (its memo), so equal values always give equal keys."""
    return hashlib.blake2b(repr(value).encode(), digest_size=20).hexdigest()


def _warn(message: str) -> None:
    print(f"breakscan: warning: {message}", file=sys.stderr)


class Cache:
    """The static pass's cache for one run: rows are read on demand, writes are buffered and
    committed by `save()` in one transaction, which then closes the database (a later use
    opens it again). Never raises on bad cache data or a busy, corrupt or unwritable database
    (it warns where the user should know, and carries on).

    `directory`: where the database lives (default `cache_dir()`); `max_bytes`: its size bound
    (default `max_bytes_from_env()`); `warn`: called with one-line messages (default: stderr);
    `clock`: Unix seconds, recorded as rows' last use and check (tests move it).
    """

    def __init__(self, directory: Path | None = None, *, max_bytes: int | None = None,
                 warn: Callable[[str], None] | None = None, clock: Callable[[], float] = time.time) -> None:
        self.directory = Path(directory) if directory is not None else cache_dir()
        self.path = self.directory / f"static-v{FORMAT}.sqlite3"
        self.max_bytes = max_bytes if max_bytes is not None else max_bytes_from_env()
        self.warn = warn or _warn
        self.clock = clock
        self.code = code_version()
        self._db: sqlite3.Connection | None = None
        self._opened = False
        self._busy = False  # a read found the database locked beyond the timeout: reads are misses
        self._indexes: dict[str, tuple] = {}  # path -> row to write
        self._keyed: dict[str, dict[tuple[str, str], tuple]] = {t: {} for t in _KEYED}  # rows to write
        self._hits: dict[str, set] = {t: set() for t in ("indexes", *_KEYED)}
        self._packages: dict[Path, str] = {}  # directory -> dotted package prefix ("" if none)
        self._types: tuple[int, str] | None = None
        self._rules: tuple[int, str] | None = None

    # connection ---------------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection | None:
        """The open database, created on first use; None when it cannot be used this run."""
        if self._opened:
            return self._db
        self._opened = True
        for attempt in (1, 2):
            try:
                self._db = _retry_busy(self._open)
                return self._db
            except sqlite3.DatabaseError as exc:
                if _is_busy(exc):  # locked beyond the timeout: reads miss, save() tries once more
                    self._busy, self._opened = True, False
                    return None
                if isinstance(exc, sqlite3.OperationalError) and not _is_corruption(exc):
                    return None  # unwritable directory: run uncached
                self._close()
                if attempt == 1 and self._discard(exc):
                    continue
                self.warn(f"result cache {self.path} is unusable ({exc}); running without it")
                return None
            except OSError:  # the directory cannot be created: run uncached, as --no-cache
                return None
        return None

    def _open(self) -> sqlite3.Connection:
        self.directory.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")  # a cache: a power cut may lose the last run
            if not db.execute("SELECT 1 FROM sqlite_master WHERE name='fixes'").fetchone():
                db.execute("PRAGMA auto_vacuum=INCREMENTAL")  # before the first table: lets eviction shrink the file
                db.executescript(f"BEGIN IMMEDIATE; {_SCHEMA} COMMIT;")
                _remove_legacy(self.directory)
        except BaseException:
            db.close()
            raise
        return db

    def _discard(self, exc: Exception) -> bool:
        """Remove a corrupt database (and its WAL) so that a new one is made; warns."""
        self.warn(f"result cache {self.path} is corrupt ({exc}); replacing it with a new one")
        try:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)
        except OSError:
            return False
        return True

    def _close(self) -> None:
        if self._db is not None:
            try:
                self._db.close()
            except sqlite3.Error:
                pass
            self._db = None

    def _query(self, sql: str, args: tuple) -> tuple | None:
        """One row of a read, or None (also when the database fails). A read locked beyond the
        busy timeout is a miss, and so are the run's later reads; its writes are still saved."""
        if self._busy:
            return None
        db = self._connect()
        if db is None:
            return None
        try:
            return _retry_busy(lambda: db.execute(sql, args).fetchone())
        except sqlite3.Error as exc:
            if _is_busy(exc):
                self._busy = True
            else:
                self._failed(exc)
            return None

    def _failed(self, exc: sqlite3.Error) -> None:
        """After a failed statement: a corrupt database is discarded (the next use makes a new
        one); any other failure (busy beyond the timeout, disk full) leaves the cache off."""
        self._close()
        if _is_corruption(exc) and self._discard(exc):
            self._opened = False

    # phase A -----------------------------------------------------------------------------
    def get_index(self, path: Path):
        """The cached FileIndex of `path` if its content and module name are unchanged, else None."""
        from breakscan.notebook import is_notebook
        from breakscan.static.engine import file_digest, notebook_source

        key = str(path)
        row = self._query("SELECT digest, name, entry, used FROM indexes WHERE path=? AND code=?", (key, self.code))
        if row is None:
            return None
        try:
            data = unsaved.read_bytes(path)
            if is_notebook(path):  # indexed as its code cells' module (engine.read_source)
                data = notebook_source(path, data)
            if not isinstance(data, bytes) or file_digest(data) != row[0] or self._module_name(path) != row[1]:
                return None
        except OSError:
            return None
        try:
            entry = pickle.loads(row[2])
        except Exception:  # a row no code of ours wrote: a miss, rewritten by put_index
            return None
        self._hit("indexes", key, row[3])
        return entry

    def put_index(self, entry) -> None:
        """Remember a FileIndex (phase A result) of a readable file."""
        if not entry.digest:
            return
        try:
            st = entry.path.stat()
        except OSError:
            return
        name = entry.info.name if entry.info is not None else self._module_name(entry.path)
        blob = pickle.dumps(entry, protocol=pickle.HIGHEST_PROTOCOL)
        self._indexes[str(entry.path)] = (str(entry.path), self.code, entry.digest, name,
                                          st.st_mtime_ns, st.st_size, blob, len(blob))

    def _module_name(self, path: Path) -> str:
        """`index.module_name_for(path)`, the package walk memoized per directory."""
        parent = path.parent
        package = self._packages.get(parent)
        if package is None:
            from breakscan.static.index import module_name_for

            package = module_name_for(parent / "__init__.py") if (parent / "__init__.py").is_file() else ""
            self._packages[parent] = package
        if path.stem == "__init__":
            return package or path.stem
        return f"{package}.{path.stem}" if package else path.stem

    # phase B -----------------------------------------------------------------------------
    def check_key(self, digest: str, regions: list, index, rules: list, extra: object = ()) -> str:
        """The key of a file's findings; see the module docstring. `extra`: more inputs of the
        file's findings (its regions' Dynamo settings), hashed by repr."""
        if self._types is None or self._types[0] != id(index):
            self._types = (id(index), self.types_digest(index))
        if self._rules is None or self._rules[0] != id(rules):
            self._rules = (id(rules), _digest(sorted(
                (r.id, repr(r.match), r.message, r.severity.value, r.kind.value, r.fix, r.gb_ids, r.silenced_by)
                for r in rules) + [sorted(python_value_returns())]))  # data the inference reads
        own = sorted((r.function.qualname, r.function.occurrence, r.chain) for r in regions)
        return _digest((digest, own, self._types[1], self._rules[1], __version__, self.code, extra))

    def types_digest(self, index) -> str:
        """The digest of what other files give each file's findings (`_types_summary`)."""
        return _digest(_types_summary(index))

    def get_findings(self, path: str, key: str) -> list | None:
        """Cached findings of `path` under `key`, or None."""
        found = self._get_value("checks", path, key)
        return list(found) if isinstance(found, list) else None

    def put_findings(self, path: str, key: str, findings: list) -> None:
        """Remember a file's findings under `key`."""
        self._put_value("checks", path, key, list(findings))

    # rewrites (--fix's `[*]` markers and SARIF fixes) ----------------------------------------
    def fixes_key(self, path: Path, items: list) -> str | None:
        """The key of the rewrites of `path`'s fixable findings: its content digest, `items`
        (per finding: its rule, span and autofix) and breakscan's code; None if unreadable."""
        from breakscan.static.engine import file_digest

        try:
            digest = file_digest(unsaved.read_bytes(path))
        except OSError:
            return None
        return _digest((digest, items, self.code))

    def get_fixes(self, path: str, key: str) -> list | None:
        """Cached rewrites (one per fixable finding, None where none applies), or None."""
        found = self._get_value("fixes", path, key)
        return found if isinstance(found, list) else None

    def put_fixes(self, path: str, key: str, rewrites: list) -> None:
        """Remember the rewrites of a file's fixable findings under `key`."""
        self._put_value("fixes", path, key, rewrites)

    def _get_value(self, table: str, path: str, key: str) -> Any:
        row = self._query(f"SELECT value, used FROM {table} WHERE path=? AND key=?", (path, key))
        if row is None:
            return None
        try:
            value = pickle.loads(row[0])
        except Exception:  # a row no code of ours wrote: a miss, rewritten by the next put
            return None
        self._hit(table, (path, key), row[1])
        return value

    def _hit(self, table: str, key, used: int) -> None:
        """Refresh a row's last use at save, when older than TOUCH_AGE_S: a warm run that
        changes nothing writes nothing."""
        if used < self.clock() - TOUCH_AGE_S:
            self._hits[table].add(key)

    def _put_value(self, table: str, path: str, key: str, value: Any) -> None:
        blob = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        self._keyed[table][(path, key)] = (path, key, blob, len(blob))

    # writing -----------------------------------------------------------------------------
    def save(self) -> None:
        """Commit this run's rows and last uses in one transaction, then prune a batch of
        stale rows and evict beyond the size bound. Never raises; a database busy beyond the
        timeout or unwritable loses this run's writes only."""
        db = self._connect()
        if db is None:
            return
        now = int(self.clock())
        try:
            if self._indexes or any(self._keyed.values()) or any(self._hits.values()):
                def write() -> None:
                    if db.in_transaction:  # a COMMIT that was answered busy: start over
                        db.execute("ROLLBACK")
                    with _transaction(db):
                        self._write(db, now)

                _retry_busy(write)
            self._indexes.clear()
            self._keyed = {t: {} for t in _KEYED}
            self._hits = {t: set() for t in self._hits}
            self.sweep()
            self.evict()
        except sqlite3.Error as exc:
            self._failed(exc)
            return
        self._close()  # now, not at garbage collection (the connection is in a reference cycle):
        self._opened = self._busy = False  # the last one to close folds the WAL into the database file

    def _write(self, db: sqlite3.Connection, now: int) -> None:
        db.executemany(
            "INSERT INTO indexes (path, code, digest, name, mtime_ns, size, entry, bytes, used, swept) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (path) DO UPDATE SET code=excluded.code, "
            "digest=excluded.digest, name=excluded.name, mtime_ns=excluded.mtime_ns, size=excluded.size, "
            "entry=excluded.entry, bytes=excluded.bytes, used=excluded.used, swept=excluded.swept",
            [(*row, now, now) for row in self._indexes.values()])
        for table in _KEYED:  # a file indexed again has new content: its findings and rewrites are stale
            db.executemany(f"DELETE FROM {table} WHERE path=?", [(p,) for p in self._indexes])
        db.executemany("UPDATE indexes SET used=? WHERE path=?", [(now, p) for p in self._hits["indexes"]])
        for table in _KEYED:
            rows = self._keyed[table]
            db.executemany(f"INSERT OR REPLACE INTO {table} (path, key, value, bytes, used) VALUES (?, ?, ?, ?, ?)",
                           [(*row, now) for row in rows.values()])
            for path in {p for p, _ in rows}:
                db.execute(f"DELETE FROM {table} WHERE path=? AND key NOT IN "
                           f"(SELECT key FROM {table} WHERE path=? ORDER BY used DESC LIMIT ?)",
                           (path, path, KEYS_PER_FILE))
            db.executemany(f"UPDATE {table} SET used=? WHERE path=? AND key=?",
                           [(now, p, k) for p, k in self._hits[table]])

    def sweep(self, rows: int = SWEEP_ROWS) -> int:
        """Delete the rows, among the `rows` checked longest ago (and not within a day), whose
        file is gone or changed on disk since it was indexed (with its findings), and other
        code's rows unused for a day. Returns how many files' rows were deleted."""
        db = self._connect()
        if db is None:
            return 0
        now = int(self.clock())
        batch = db.execute("SELECT path, code, mtime_ns, size, used FROM indexes WHERE swept<? "
                           "ORDER BY swept LIMIT ?", (now - SWEEP_AGE_S, rows)).fetchall()
        gone, kept = [], []
        for path, code, mtime_ns, size, used in batch:
            try:
                st = os.stat(path)
                same = st.st_mtime_ns == mtime_ns and st.st_size == size
            except OSError:
                same = False
            foreign_unused = code != self.code and used < now - SWEEP_AGE_S
            (kept if same and not foreign_unused else gone).append(path)
        if not batch:
            return 0
        with _transaction(db):
            for table in ("indexes", *_KEYED):
                db.executemany(f"DELETE FROM {table} WHERE path=?", [(p,) for p in gone])
            db.executemany("UPDATE indexes SET swept=? WHERE path=?", [(now, p) for p in kept])
        return len(gone)

    def size(self) -> int:
        """Bytes the database's live pages take (its file, less free pages)."""
        db = self._connect()
        if db is None:
            return 0
        pages = db.execute("PRAGMA page_count").fetchone()[0] - db.execute("PRAGMA freelist_count").fetchone()[0]
        return pages * db.execute("PRAGMA page_size").fetchone()[0]

    def evict(self) -> int:
        """Above the size bound, delete the least recently used rows until the database is
        down to EVICT_TO of it, and return the freed pages to the file system. Returns the
        number of rows deleted."""
        db = self._connect()
        if db is None:
            return 0
        size = self.size()
        if size <= self.max_bytes:
            return 0
        cursor = db.execute("SELECT 'indexes', path, '', bytes, used FROM indexes UNION ALL "
                            + " UNION ALL ".join(f"SELECT '{t}', path, key, bytes, used FROM {t}" for t in _KEYED)
                            + " ORDER BY used")
        victims = [row[:3] for row in _rows_until(cursor, size - int(self.max_bytes * EVICT_TO))]
        cursor.close()  # ends its read before the write transaction
        with _transaction(db):
            db.executemany("DELETE FROM indexes WHERE path=?", [(p,) for t, p, _ in victims if t == "indexes"])
            for table in _KEYED:
                db.executemany(f"DELETE FROM {table} WHERE path=? AND key=?",
                               [(p, k) for t, p, k in victims if t == table])
        db.execute("PRAGMA incremental_vacuum")
        return len(victims)

    def stats(self) -> dict[str, int]:
        """Rows per table and the database's size in bytes (for tests and the benchmark)."""
        db = self._connect()
        tables = ("indexes", *_KEYED)
        if db is None:
            return {**{t: 0 for t in tables}, "bytes": 0}
        return {**{t: db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables}, "bytes": self.size()}

    def close(self) -> None:
        """Close the database (buffered rows not yet saved are dropped)."""
        self._close()


def _remove_legacy(directory: Path) -> None:
    """Delete the whole-project pickles breakscan 0.1 wrote here (`<20 hex digits>.pickle`, one per
    project root, never pruned): the database replaces them."""
    for path in directory.glob("*.pickle"):
        if len(path.stem) == 20 and all(c in "0123456789abcdef" for c in path.stem):
            try:
                path.unlink()
            except OSError:
                pass


def _rows_until(cursor, excess: int):
    """Rows of (table, path, key, bytes) from `cursor` until their bytes reach `excess`."""
    freed = 0
    for row in cursor:
        if freed >= excess:
            break
        freed += row[3] + 200  # a row's own overhead besides its blob
        yield row


class _transaction:
    """`BEGIN IMMEDIATE` ... `COMMIT` (rolled back on error): takes the write lock up front,
    so a concurrent writer waits on the busy timeout instead of failing mid-transaction."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> sqlite3.Connection:
        self.db.execute("BEGIN IMMEDIATE")
        return self.db

    def __exit__(self, kind, exc, tb) -> None:
        self.db.execute("COMMIT" if kind is None else "ROLLBACK")


def _retry_busy(fn):
    """`fn()`, tried again (up to BUSY_RETRIES times, 0.05-0.25 s apart) while SQLite answers
    that the database is locked or busy sooner than its busy timeout (it did not wait: see
    BUSY_RETRIES); a busy answer after the whole timeout, any other error, or the last one,
    is raised."""
    for attempt in range(BUSY_RETRIES):
        started = time.monotonic()
        try:
            return fn()
        except sqlite3.OperationalError as exc:
            waited = time.monotonic() - started >= BUSY_TIMEOUT_S * 0.9
            if attempt == BUSY_RETRIES - 1 or not _is_busy(exc) or waited:
                raise
            time.sleep(0.05 * (attempt + 1))
    raise AssertionError("unreachable")


def _is_busy(exc: BaseException) -> bool:
    """Whether a sqlite3 error says the database is locked or busy (SQLITE_BUSY, SQLITE_LOCKED)."""
    text = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text)


def _is_corruption(exc: BaseException) -> bool:
    """Whether a sqlite3 error says the file is not a (sound) database, rather than busy or
    unwritable."""
    text = str(exc).lower()
    return (isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.OperationalError)) \
        or "malformed" in text or "not a database" in text or "corrupt" in text


def _types_summary(index) -> list:
    """What other files contribute to a file's findings: classes, their attributes, disables,
    functions' return annotations."""
    return [item for name in sorted(index.modules) for item in module_types(name, index.modules[name])]


def module_types(name: str, module) -> list:
    """One module's part of `_types_summary` (`name`: its key in the index)."""
    out = []
    for cls in module.classes.values():
        out.append((cls.qualname, tuple(cls.bases), tuple(sorted(cls.methods)),
                    tuple(sorted(cls.tensor_attrs)), tuple(sorted(cls.scalar_attrs)),
                    tuple(sorted(cls.numeric_attrs)), tuple(sorted(cls.buffer_attrs)), tuple(sorted((k, tuple(v)) for k, v in cls.submodules.items())),
                    tuple(sorted((k, tuple(v)) for k, v in cls.callable_attrs.items()))))
    out.append((name, tuple(sorted(module.disabled)), tuple(sorted(module.disallowed)),
                tuple(sorted(module.marker_returns.items())), tuple(module.constructions),
                shared_kinds(module), tuple(sorted(module.foreign_stores)),
                # return annotations: a caller's inferred kinds take them (call_sites._annotated_return)
                tuple(sorted((f.qualname, f.returns, tuple(sorted(f.param_annotations.items())))
                             for f in module.functions.values() if f.returns)),
                tuple(sorted(module.type_vars)),
                tuple(sorted((k, tuple(v)) for k, v in module.registries.items())),
                tuple(sorted(module.registrars.items())), tuple(module.registry_items),
                tuple(sorted((f.qualname, f.returns) for c in module.classes.values()
                             for f in c.methods.values() if f.returns))))
    return out
