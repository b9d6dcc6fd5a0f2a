"""`breakscan server`: a Language Server (pygls) on stdio for editors.

Diagnostics come from the static pass over the whole workspace folder (compile regions are
project-wide: a function is checked because a file elsewhere compiles it), with the editor's text
for the documents it holds open and the disk's for every other file (breakscan.static.unsaved).
Each workspace folder is a project of its own (a document belongs to the innermost folder holding
it; one outside every folder is scanned with the first). The dynamic pass never runs here: an
editor must not run the user's code as they type.

Kept warm: the first scan runs at `initialized` and fills the static pass's cache
(breakscan.static.cache), so a later scan re-checks only what changed: the edited document, and
the files whose compile regions or chains its change moves. The compile regions and their Dynamo
settings are reused from the last scan when the edit cannot move them
(breakscan.static.region_pass.IncrementalRegions), and the cross-file BRK406 pass and the report
are made for the open documents only. Scans run one at a time in one worker thread; edits made
during a scan are coalesced into the next one, which scans the folders they concern.

Config, suppression comments and Dynamo settings are the CLI's own: `[tool.breakscan]` from the
nearest pyproject.toml at or above the workspace root, read again when it changes; the report
is built as `breakscan --no-dynamic ROOT` builds it (breakscan.scan.static_pass, build_report).
Code actions are the rewrites of `--fix` (breakscan.fix): safe ones preferred, unsafe ones
offered, never preferred. Hover on a finding shows its rule's fix and graph-break site links.
"""

from __future__ import annotations

import asyncio
import gc
import hashlib
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from breakscan import __version__
from breakscan.catalog import Rule, load_catalog
from breakscan.config import Config, ConfigError, find_pyproject, load_config
from breakscan.findings import Edit, Finding, Severity
from breakscan.report.ruleinfo import finding_gb_ids, gb_link, rule_title
from breakscan.static import unsaved
from breakscan.static.cache import Cache, module_types
from breakscan.static.region_pass import IncrementalRegions

SOURCE = "breakscan"
_SEVERITY = {Severity.ERROR: types.DiagnosticSeverity.Error, Severity.WARNING: types.DiagnosticSeverity.Warning,
             Severity.NOTE: types.DiagnosticSeverity.Information}


@dataclass
class Snapshot:
    """The open documents at one moment: absolute path -> (uri, version, text)."""

    docs: dict[str, tuple[str, int | None, str]] = field(default_factory=dict)


@dataclass
class Scanned:
    """One document's findings from the scan of `version` of its `text`."""

    uri: str
    version: int | None
    text: str
    findings: list[Finding]
    context: list[Finding]  # the whole report's findings, suppressed ones too (for rewrites)
    fixes_done: bool = False


class Workspace:
    """The warm state of one workspace root: its catalog, its config, the static pass's cache.

    `root`: the workspace folder (absolute). Every method but `__init__` runs on the scan thread.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.catalog: dict[str, Rule] = load_catalog()
        self._config: Config | None = None
        self._config_key: tuple | None = None
        self.config_error: str | None = None
        self.cache = WarmCache()
        self.regions = IncrementalRegions()
        self._frozen = False

    def config(self) -> Config | None:
        """`[tool.breakscan]` of the nearest pyproject.toml at or above the root, re-read when
        that file changes; None (and `config_error` set) when it is invalid."""
        pyproject = find_pyproject(self.root)
        try:
            stat = pyproject.stat() if pyproject else None
        except OSError:
            stat = None
        key = (str(pyproject), stat.st_mtime_ns if stat else 0, stat.st_size if stat else 0)
        if key != self._config_key:
            self._config_key = key
            try:
                config = load_config(pyproject)
                config.validate(self.catalog)
                config.dynamic = False  # the editor never runs the user's code
                # In-process: a process pool forks, and a fork of this threaded server can hang on
                # a lock another thread held (measured: the first scan of a 141-file tree never ended).
                config.jobs = 1
                self._config, self.config_error = config, None
            except ConfigError as exc:
                self._config, self.config_error = None, str(exc)
        return self._config

    def scan(self, snapshot: Snapshot, texts: dict[str, str] | None = None) -> dict[str, Scanned]:
        """Run the static pass over the workspace with the editor's texts (`texts`, absolute path
        to text: every open document; default: the snapshot's); findings per document of
        `snapshot` (those this workspace reports: after suppression comments, selection and
        severities). Its documents outside the root are scanned with it."""
        from breakscan.scan import DynamicOutcome, build_report, static_pass
        from breakscan.static.unsaved import editor_texts

        config = self.config()
        if config is None:
            return {path: Scanned(uri, version, text, [], []) for path, (uri, version, text) in snapshot.docs.items()}
        outside = [Path(p) for p in snapshot.docs if not _inside(Path(p), self.root) and Path(p).exists()]
        if texts is None:
            texts = {path: text for path, (_, _, text) in snapshot.docs.items()}
        with editor_texts({path: text.encode("utf-8") for path, text in texts.items()}):
            static = static_pass([self.root, *outside], config, self.catalog, root=self.root, cache=self.cache,
                                 region_pass=self.regions, report_paths=set(snapshot.docs))
            # The report of the open documents only: suppressions, selection and severities are
            # per file; the other files' findings are read only by rewrites (reorder-print asks
            # whether compiled code prints anywhere), by rule, path and line, which the raw ones give.
            context = [*static.findings, *static.suppressed]
            opened = replace(static, findings=[f for f in static.findings if f.path in snapshot.docs],
                             suppressed=[f for f in static.suppressed if f.path in snapshot.docs])
            report = build_report(opened, DynamicOutcome(), config, root=self.root)
        by_path: dict[str, list[Finding]] = {}
        for f in report.findings:
            by_path.setdefault(f.path, []).append(f)
        return {path: Scanned(uri, version, text, by_path.get(path, []), context)
                for path, (uri, version, text) in snapshot.docs.items()}

    def settle(self) -> None:
        """Run while the server is idle after a scan: the region pass's preparation for the next
        edit and, after the first scan, one full garbage collection, then everything alive (mostly
        the project's index) is left out of later collections (`gc.freeze`): a full collection
        walked all of it, 0.8 s of CPU inside a keystroke's scan on transformers' 2,860 files."""
        self.regions.prepare()
        if not self._frozen:
            self._frozen = True
            gc.collect()
            gc.freeze()

    def attach_fixes(self, path: str, scanned: Scanned) -> None:
        """Give `scanned`'s fixable findings their `--fix` rewrites, on the text that was scanned."""
        from breakscan.fix import attach_rewrites
        from breakscan.static.unsaved import editor_texts

        if scanned.fixes_done:
            return
        with editor_texts({path: scanned.text.encode("utf-8")}):
            scanned.findings = attach_rewrites(scanned.findings, self.catalog, scanned.context)
        scanned.fixes_done = True


class WarmCache(Cache):
    """The static pass's cache with phase A's entries also kept in memory between scans: a file
    whose size, mtime, inode and module name are unchanged since is not read, hashed or
    unpickled again (measured: that is most of a warm scan's CPU time on a 141-file tree).
    Editors' unsaved texts (breakscan.static.unsaved) always go to the cache proper."""

    def __init__(self) -> None:
        super().__init__()
        self.memo: dict[str, tuple[tuple, object]] = {}
        self.findings_memo: dict[tuple[str, str], list] = {}
        self.types_memo: dict[tuple[str, int], tuple[object, str]] = {}  # (index key, id(info)) -> (info, repr)

    def _stamp(self, path: Path) -> tuple | None:
        try:
            st = path.stat()
        except OSError:
            return None
        return (st.st_size, st.st_mtime_ns, st.st_ino, self._module_name(path))

    def get_index(self, path: Path):
        """As Cache.get_index, from memory while the file's stamp is unchanged."""
        if unsaved.held(path):
            return super().get_index(path)
        stamp, kept = self._stamp(path), self.memo.get(str(path))
        if stamp is not None and kept is not None and kept[0] == stamp:
            return kept[1]
        entry = super().get_index(path)
        if entry is not None and stamp is not None:
            self.memo[str(path)] = (stamp, entry)
        return entry

    def put_index(self, entry) -> None:
        """As Cache.put_index; kept in memory too (not an editor's text)."""
        super().put_index(entry)
        stamp = None if unsaved.held(entry.path) else self._stamp(entry.path)
        if stamp is not None and entry.digest:
            self.memo[str(entry.path)] = (stamp, entry)

    def types_digest(self, index) -> str:
        """As Cache.types_digest (the same digest: the repr of the summary list, joined from each
        module's part), each module's part computed once per index entry."""
        parts, memo = [], {}
        for name in sorted(index.modules):
            info = index.modules[name]
            kept = self.types_memo.get((name, id(info)))
            if kept is None or kept[0] is not info:
                kept = (info, ", ".join(map(repr, module_types(name, info))))
            memo[(name, id(info))] = kept
            parts.append(kept[1])
        self.types_memo = memo
        return hashlib.blake2b(f"[{', '.join(parts)}]".encode(), digest_size=20).hexdigest()

    def get_findings(self, path: str, key: str) -> list | None:
        """As Cache.get_findings, from memory after the first time (the key holds the file's digest)."""
        kept = self.findings_memo.get((path, key))
        if kept is None:
            kept = super().get_findings(path, key)
            if kept is not None:
                self.findings_memo[(path, key)] = kept
        return list(kept) if kept is not None else None

    def put_findings(self, path: str, key: str, findings: list) -> None:
        """As Cache.put_findings; kept in memory too, the newest key per file only."""
        super().put_findings(path, key, findings)
        for old in [k for k in self.findings_memo if k[0] == path]:
            del self.findings_memo[old]
        self.findings_memo[(path, key)] = list(findings)

    def save(self) -> None:
        """As Cache.save; the per-directory package names are looked up again next scan."""
        super().save()
        self._packages.clear()


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
    except ValueError:
        return False
    return True


class BreakscanServer(LanguageServer):
    """The language server: documents, one scan thread, the latest findings per document."""

    def __init__(self) -> None:
        super().__init__("breakscan", __version__)
        self.workspaces: dict[Path, Workspace] = {}  # one per workspace folder, in the client's order
        self.scanned: dict[str, Scanned] = {}  # by absolute path
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="breakscan-scan")
        self._dirty = False
        self._changed: set[str] | None = set()  # paths changed since the last scan; None: all of them
        self._running = False
        self._shown_errors: dict[Path, str | None] = {}

    @property
    def workspace_state(self) -> Workspace | None:
        """The first workspace folder's state (its catalog is every workspace's)."""
        return next(iter(self.workspaces.values()), None)

    def owner(self, path: str) -> Workspace | None:
        """The workspace that reports on `path`: the innermost folder holding it, else the first
        (a file outside every folder is scanned with the first one)."""
        inside = [root for root in self.workspaces if _inside(Path(path), root)]
        return self.workspaces[max(inside, key=lambda r: len(r.parts))] if inside else self.workspace_state

    def set_folders(self, roots: list[Path]) -> None:
        """Keep one workspace per root in `roots` (a new one for a new root, warm ones kept)."""
        self.workspaces = {root: self.workspaces.get(root) or Workspace(root) for root in dict.fromkeys(roots)}
        self._shown_errors = {root: self._shown_errors.get(root) for root in self.workspaces}

    # the scan loop ------------------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        """The open Python documents with a file path (untitled buffers have none)."""
        docs = {}
        for uri, doc in self.workspace.text_documents.items():
            path = to_fs_path(uri)
            if path and (path.endswith((".py", ".pyi")) or doc.language_id == "python"):
                docs[os.path.abspath(path)] = (uri, doc.version, doc.source)
        return Snapshot(docs)

    async def refresh(self, changed: str | None = None) -> None:
        """Scan again soon the workspaces that `changed` (an absolute path; None: every
        workspace) concerns; a request made while a scan runs is served by one more scan after it."""
        self._dirty = True
        if changed is None or self._changed is None:
            self._changed = None
        else:
            self._changed.add(changed)
        if self._running or not self.workspaces:
            return
        self._running = True
        loop = asyncio.get_running_loop()
        try:
            while self._dirty:
                self._dirty, changed_paths, self._changed = False, self._changed, set()
                snapshot = self.snapshot()
                texts = {path: text for path, (_, _, text) in snapshot.docs.items()}
                for state in self._to_scan(snapshot, changed_paths):
                    mine = Snapshot({p: d for p, d in snapshot.docs.items() if self.owner(p) is state})
                    try:
                        results = await loop.run_in_executor(self._executor, state.scan, mine, texts)
                    except Exception as exc:  # breakscan's bug: say so once, keep serving
                        self.window_log_message(types.LogMessageParams(
                            type=types.MessageType.Error,
                            message=f"breakscan: internal error: {type(exc).__name__}: {exc}"))
                        continue
                    self._publish(state, results)
                    if not self._dirty:  # idle: what the next edit may need, worked out ahead
                        await loop.run_in_executor(self._executor, state.settle)
        finally:
            self._running = False

    def _to_scan(self, snapshot: Snapshot, changed: set[str] | None) -> list[Workspace]:
        """The workspaces a scan must run for: all (`changed` None); else those holding or
        reporting on a changed path (nested folders: each one holding it)."""
        if changed is None:
            return list(self.workspaces.values())
        return [state for root, state in self.workspaces.items()
                if any(_inside(Path(p), root) or self.owner(p) is state for p in changed)]

    def _publish(self, state: Workspace, results: dict[str, Scanned]) -> None:
        error = state.config_error
        if error and error != self._shown_errors.get(state.root):  # once per distinct error, not per keystroke
            self.window_show_message(types.ShowMessageParams(type=types.MessageType.Error,
                                                             message=f"breakscan: {error}"))
        self._shown_errors[state.root] = error
        open_now = self.snapshot().docs
        for path, scanned in results.items():
            if path not in open_now:
                continue  # closed meanwhile: its diagnostics were cleared at close
            self.scanned[path] = scanned
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
                uri=scanned.uri, version=scanned.version,
                diagnostics=[self.diagnostic(scanned, f) for f in scanned.findings]))

    # conversions ---------------------------------------------------------------------------
    def lsp_range(self, scanned: Scanned, f: Finding) -> types.Range:
        """The finding's span (1-based code points, end exclusive) in the client's units."""
        lines = scanned.text.splitlines(keepends=True) or [""]
        line = min(max(f.line - 1, 0), len(lines) - 1)
        end_line = min(max((f.end_line or f.line) - 1, line), len(lines) - 1)
        if f.end_column and f.end_line:
            end_char = f.end_column - 1
        else:  # no end: to the end of the line
            end_char = len(lines[end_line].rstrip("\r\n"))
        start = types.Position(line=line, character=max(f.column - 1, 0))
        end = types.Position(line=end_line, character=max(end_char, 0))
        codec = self.workspace.position_codec
        return codec.range_to_client_units(lines, types.Range(start=start, end=end))

    def edit_range(self, scanned: Scanned, e: Edit) -> types.Range:
        """A rewrite's edit in the client's units; an edit that ends past the last line (whole-line
        edits of the file's last line) ends at the line after it, the document's end."""
        lines = scanned.text.splitlines(keepends=True)
        return self.workspace.position_codec.range_to_client_units(lines, types.Range(
            start=types.Position(line=e.line - 1, character=e.column - 1),
            end=types.Position(line=e.end_line - 1, character=e.end_column - 1)))

    def diagnostic(self, scanned: Scanned, f: Finding) -> types.Diagnostic:
        """An LSP diagnostic: code = rule id, its link to the graph-break site (or the rule's file)."""
        href = self.rule_link(f)
        return types.Diagnostic(
            range=self.lsp_range(scanned, f), message=f.message, source=SOURCE,
            severity=_SEVERITY.get(f.severity, types.DiagnosticSeverity.Warning), code=f.rule_id,
            code_description=types.CodeDescription(href=href) if href else None,
            data={"status": f.status.value, "kind": f.kind.value})

    def rule_link(self, f: Finding) -> str | None:
        """The finding's first graph-break site page, else its rule's TOML file."""
        catalog = self.workspace_state.catalog if self.workspace_state else {}
        gb_ids = finding_gb_ids(f, catalog)
        if gb_ids:
            return gb_link(gb_ids[0])
        rule = catalog.get(f.rule_id)
        return from_fs_path(str(rule.source)) if rule and rule.source else None


server = BreakscanServer()


def _folder_path(uri: str) -> Path | None:
    path = to_fs_path(uri)
    return Path(os.path.abspath(path)) if path else None


def _workspace_roots(params: types.InitializeParams) -> list[Path]:
    """Every workspace folder (`file:` ones), else rootUri/rootPath, else the working directory."""
    roots = [p for p in (_folder_path(f.uri) for f in params.workspace_folders or ()) if p is not None]
    if roots:
        return roots
    path = (to_fs_path(params.root_uri) if params.root_uri else None) or params.root_path
    return [Path(os.path.abspath(path or os.getcwd()))]


@server.feature(types.INITIALIZE)
def initialize(ls: BreakscanServer, params: types.InitializeParams) -> None:
    """One workspace per folder, each its own project root (the scan at `initialized` warms them)."""
    ls.set_folders(_workspace_roots(params))


@server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
async def did_change_workspace_folders(ls: BreakscanServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
    """Folders added or removed: a workspace for each new one (scanned now), none for removed ones."""
    removed = {_folder_path(f.uri) for f in params.event.removed or ()}
    added = [p for p in (_folder_path(f.uri) for f in params.event.added or ()) if p is not None]
    ls.set_folders([*(root for root in ls.workspaces if root not in removed), *added])
    await ls.refresh()


@server.feature(types.INITIALIZED)
async def initialized(ls: BreakscanServer, params: types.InitializedParams) -> None:
    """The first scan: the whole workspace, filling the cache, before any document is opened."""
    await ls.refresh()


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
async def did_open(ls: BreakscanServer, params: types.DidOpenTextDocumentParams) -> None:
    """A document opened: scan (the editor's text for it)."""
    await ls.refresh(_path_of(params.text_document.uri))


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
async def did_change(ls: BreakscanServer, params: types.DidChangeTextDocumentParams) -> None:
    """An unsaved change: scan again with the editor's new text."""
    await ls.refresh(_path_of(params.text_document.uri))


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
async def did_save(ls: BreakscanServer, params: types.DidSaveTextDocumentParams) -> None:
    """A save: scan again (the disk now holds the editor's text)."""
    await ls.refresh(_path_of(params.text_document.uri))


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
async def did_close(ls: BreakscanServer, params: types.DidCloseTextDocumentParams) -> None:
    """Clear the closed document's diagnostics; the others see the disk's text for it again."""
    path = to_fs_path(params.text_document.uri)
    if path:
        ls.scanned.pop(os.path.abspath(path), None)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))
    await ls.refresh(_path_of(params.text_document.uri))


def _path_of(uri: str) -> str | None:
    """The absolute path of a document URI; None (scan every workspace) when it has none."""
    path = to_fs_path(uri)
    return os.path.abspath(path) if path else None


def _overlaps(a: types.Range, b: types.Range) -> bool:
    return (a.start.line, a.start.character) <= (b.end.line, b.end.character) and \
        (b.start.line, b.start.character) <= (a.end.line, a.end.character)


def _current(ls: BreakscanServer, uri: str) -> tuple[str, Scanned] | None:
    """The scan of the document as it stands now (None when it changed since, or never was)."""
    path = to_fs_path(uri)
    scanned = ls.scanned.get(os.path.abspath(path)) if path else None
    doc = ls.workspace.text_documents.get(uri)
    if scanned is None or doc is None or doc.source != scanned.text:
        return None
    return os.path.abspath(path), scanned


@server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
async def code_action(ls: BreakscanServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    """One quick fix per fixable finding in the range: the rewrite `--fix` makes for it (safe:
    preferred; unsafe: offered, not preferred, as `--unsafe-fixes` asks for them)."""
    current = _current(ls, params.text_document.uri)
    state = ls.owner(current[0]) if current is not None else None
    if current is None or state is None:
        return []
    path, scanned = current
    await asyncio.get_running_loop().run_in_executor(ls._executor, state.attach_fixes, path, scanned)
    actions = []
    for f in scanned.findings:
        if f.rewrite is None or not _overlaps(ls.lsp_range(scanned, f), params.range):
            continue
        edits = [types.TextEdit(range=ls.edit_range(scanned, e), new_text=e.text) for e in f.rewrite.edits]
        safe = f.rewrite.safety == "safe"
        actions.append(types.CodeAction(
            title=f"{f.rule_id}: {f.rewrite.description}" + ("" if safe else " (unsafe fix)"),
            kind=types.CodeActionKind.QuickFix, is_preferred=safe,
            diagnostics=[ls.diagnostic(scanned, f)],
            edit=types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=scanned.uri, version=scanned.version),
                edits=edits)])))
    return actions


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(ls: BreakscanServer, params: types.HoverParams) -> types.Hover | None:
    """On a finding: its rule's title, the message, the fix and the graph-break site links (markdown)."""
    current = _current(ls, params.text_document.uri)
    if current is None:
        return None
    _, scanned = current
    point = types.Range(start=params.position, end=params.position)
    hits = [f for f in scanned.findings if _overlaps(ls.lsp_range(scanned, f), point)]
    if not hits:
        return None
    text = "\n\n---\n\n".join(hover_markdown(f, ls.workspace_state.catalog) for f in hits)
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text),
                       range=ls.lsp_range(scanned, hits[0]))


def hover_markdown(f: Finding, catalog: dict[str, Rule]) -> str:
    """Markdown for one finding: rule id and title, status, message, the rule's fix, GB links."""
    rule = catalog.get(f.rule_id)
    parts = [f"**{f.rule_id}** {rule_title(f.rule_id, catalog)} ({f.status.value} {f.kind.value.replace('-', ' ')})",
             f.message]
    fix = f.fix or (rule.fix if rule else "")
    if fix:
        parts.append(f"**Fix:** {fix.strip()}")
    links = [f"[{g}]({gb_link(g)})" for g in finding_gb_ids(f, catalog)]
    if links:
        parts.append("Graph-break site: " + ", ".join(links))
    parts.append(f"More: `breakscan rule {f.rule_id}`")
    return "\n\n".join(parts)


def serve() -> None:
    """Serve LSP on stdin/stdout until the client exits."""
    server.start_io()
