"""`breakscan server`: a real LSP client (pytest-lsp) drives `.venv/bin/breakscan server` over stdio.

Each test writes a user's project in a fresh directory, opens it as the editor's workspace, and
talks to the server only through the protocol: didOpen/didChange, publishDiagnostics, codeAction,
hover.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import textwrap
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

pytest.importorskip("pygls")
pytest_lsp = pytest.importorskip("pytest_lsp")

from lsprotocol import types  # noqa: E402

BREAKSCAN = Path(sys.executable).parent / "breakscan"
WAIT_S = float(os.environ.get("LSP_TEST_WAIT_S", 120))  # a scan on a loaded machine; the figure that matters is in bench/lsp_latency.py

BREAKING = '''\
import torch


@torch.compile
def step(x):
    y = x * 2
    torch._dynamo.graph_break()
    return y + 1
'''


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


@asynccontextmanager
async def editor(tmp_path: Path, files: dict[str, str]):
    """An initialized session on the workspace `tmp_path/project` holding `files`."""
    async with editor_of_folders(tmp_path, {"project": files}) as client:
        client.root = tmp_path / "project"
        yield client


@asynccontextmanager
async def editor_of_folders(tmp_path: Path, folders: dict[str, dict[str, str]]):
    """An initialized session whose workspace folders are `tmp_path/NAME`, each holding its
    files (`folders`: NAME -> files); `client.root` is `tmp_path`."""
    for name, files in folders.items():
        (tmp_path / name).mkdir()
        write(tmp_path / name, files)
    roots = [tmp_path / name for name in folders]
    env = {**os.environ, "BREAKSCAN_CACHE_DIR": str(tmp_path / "cache")}
    config = pytest_lsp.ClientServerConfig(server_command=[str(BREAKSCAN), "server"], server_env=env)
    client = await config.start()
    client.root = tmp_path
    record_publications(client)
    try:
        await client.initialize_session(types.InitializeParams(
            capabilities=pytest_lsp.client_capabilities("visual-studio-code"), root_uri=roots[0].as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=r.as_uri(), name=r.name) for r in roots]))
        yield client
        await asyncio.wait_for(client.shutdown_session(), WAIT_S)
    finally:
        server = client._server  # pytest-lsp's stop() waits for the server: end it when the test failed
        if server is not None and server.returncode is None and sys.exc_info()[0] is not None:
            server.kill()
        await client.stop()


def record_publications(client) -> None:
    """Keep every publishDiagnostics in `client.published` as (uri, version, diagnostics): one
    scan publishes several documents back to back, and a wait for one notification at a time
    (pytest-lsp's wait_for_notification) can miss the second."""
    features = client.protocol.fm.features
    shown = features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]
    client.published, client.mark = [], 0

    def keep(*args):  # pygls calls it as it called `shown`: the params last
        params = args[-1]
        client.published.append((params.uri, params.version, list(params.diagnostics)))
        return shown(*args)

    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = keep


def open_doc(client, name: str, text: str | None = None, version: int = 1) -> str:
    """didOpen `name` (the disk's text unless `text` is given); returns its URI."""
    path = client.root / name
    uri = path.as_uri()
    client.mark = len(client.published)
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="python", version=version,
        text=path.read_text(encoding="utf-8") if text is None else text)))
    return uri


def change_doc(client, uri: str, text: str, version: int) -> None:
    """didChange replacing the whole text (unsaved: the file on disk keeps its old text)."""
    client.mark = len(client.published)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))


async def diagnostics(client, uri: str, version: int) -> list[types.Diagnostic]:
    """The first diagnostics the server publishes for `uri` at `version` after the last
    open/change/save this test sent."""
    async def wait():
        while True:
            for got_uri, got_version, diags in client.published[client.mark:]:
                if got_uri == uri and got_version == version:
                    return diags
            await asyncio.sleep(0.02)
    return await asyncio.wait_for(wait(), WAIT_S)


def codes(diags) -> list[tuple[str, int]]:
    """(code, 1-based line) of each diagnostic."""
    return sorted((d.code, d.range.start.line + 1) for d in diags)


@pytest.mark.asyncio
async def test_open_file_with_a_break_gets_a_diagnostic_at_its_span(tmp_path):
    async with editor(tmp_path, {"train.py": BREAKING}) as client:
        uri = open_doc(client, "train.py")
        diags = await diagnostics(client, uri, 1)
    assert codes(diags) == [("BRK209", 7)]
    d = diags[0]
    assert (d.range.start.character, d.range.end.line, d.range.end.character) == (4, 6, 31)
    assert d.source == "breakscan"
    assert d.severity == types.DiagnosticSeverity.Warning
    assert d.code_description.href == "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0025.html"
    assert "graph_break()" in d.message


@pytest.mark.asyncio
async def test_unsaved_change_that_fixes_the_break_clears_the_diagnostic(tmp_path):
    async with editor(tmp_path, {"train.py": BREAKING}) as client:
        uri = open_doc(client, "train.py")
        assert codes(await diagnostics(client, uri, 1)) == [("BRK209", 7)]
        change_doc(client, uri, BREAKING.replace("    torch._dynamo.graph_break()\n", ""), 2)
        assert await diagnostics(client, uri, 2) == []
        # and back: the editor's text, not the disk's (unchanged all along), is what is scanned
        change_doc(client, uri, BREAKING.replace("y = x * 2", "y = x * 2\n    print(y)"), 3)
        assert codes(await diagnostics(client, uri, 3)) == [("BRK201", 7), ("BRK209", 8)]
    assert (tmp_path / "project" / "train.py").read_text() == BREAKING


@pytest.mark.asyncio
async def test_save_scans_again(tmp_path):
    async with editor(tmp_path, {"train.py": "import torch\n"}) as client:
        uri = open_doc(client, "train.py")
        assert await diagnostics(client, uri, 1) == []
        change_doc(client, uri, BREAKING, 2)
        assert codes(await diagnostics(client, uri, 2)) == [("BRK209", 7)]
        (client.root / "train.py").write_text(BREAKING)
        client.mark = len(client.published)
        client.text_document_did_save(types.DidSaveTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=uri)))
        assert codes(await diagnostics(client, uri, 2)) == [("BRK209", 7)]


@pytest.mark.asyncio
async def test_a_region_compiled_in_another_file_is_checked(tmp_path):
    files = {
        "pkg/__init__.py": "",
        "pkg/helpers.py": '''\
            def scale(x, s):
                return x * s.item()
            ''',
        "pkg/model.py": '''\
            import torch

            from .helpers import scale


            @torch.compile
            def forward(x, s):
                return scale(x, s) + 1
            ''',
    }
    async with editor(tmp_path, files) as client:
        uri = open_doc(client, "pkg/helpers.py")
        assert codes(await diagnostics(client, uri, 1)) == [("BRK102", 2)]
        # the other file, opened and edited unsaved, stops compiling the helper
        model = open_doc(client, "pkg/model.py", version=1)
        await diagnostics(client, model, 1)
        text = (client.root / "pkg/model.py").read_text().replace("@torch.compile\n", "")
        change_doc(client, model, text, 2)
        assert await diagnostics(client, uri, 1) == []


SCALED = {  # a package whose helper only its model file compiles
    "pkg/__init__.py": "",
    "pkg/helpers.py": '''\
        def scale(x, s):
            return x * s.item()
        ''',
    "pkg/model.py": '''\
        import torch

        from .helpers import scale


        @torch.compile
        def forward(x, s):
            return scale(x, s) + 1
        ''',
}


@pytest.mark.asyncio
async def test_every_workspace_folder_is_its_own_project_and_folders_added_later_are_scanned(tmp_path):
    other = {name.replace("pkg/", "lib/"): text for name, text in SCALED.items()}  # the same package as `lib`
    async with editor_of_folders(tmp_path, {"first": {"train.py": BREAKING}, "second": SCALED}) as client:
        # the second folder's helper is compiled by a file of that folder the editor never opened
        helpers = open_doc(client, "second/pkg/helpers.py")
        assert codes(await diagnostics(client, helpers, 1)) == [("BRK102", 2)]
        train = open_doc(client, "first/train.py")
        assert codes(await diagnostics(client, train, 1)) == [("BRK209", 7)]
        # an unsaved edit in the second folder's model stops compiling its helper
        model = open_doc(client, "second/pkg/model.py")
        await diagnostics(client, model, 1)
        change_doc(client, model, (tmp_path / "second/pkg/model.py").read_text().replace("@torch.compile\n", ""), 2)
        assert await diagnostics(client, helpers, 1) == []
        # a folder added to the workspace is a project of its own too
        (tmp_path / "third").mkdir()
        write(tmp_path / "third", other)
        client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(
                added=[types.WorkspaceFolder(uri=(tmp_path / "third").as_uri(), name="third")], removed=[])))
        added = open_doc(client, "third/lib/helpers.py")
        assert codes(await diagnostics(client, added, 1)) == [("BRK102", 2)]


@pytest.mark.asyncio
async def test_suppression_comments_and_pyproject_config_apply_as_on_the_cli(tmp_path):
    files = {
        "pyproject.toml": '''\
            [tool.breakscan]
            ignore = ["BRK201"]
            dynamo-config = { capture_scalar_outputs = true }
            ''',
        "train.py": '''\
            import torch


            @torch.compile
            def step(x, s):
                print(x)
                y = x * s.item()
                torch._dynamo.graph_break()  # noqa: BRK209
                return y
            ''',
    }
    async with editor(tmp_path, files) as client:
        uri = open_doc(client, "train.py")
        assert await diagnostics(client, uri, 1) == []
    cli = subprocess.run([str(BREAKSCAN), "--no-dynamic", "-q", "."], cwd=tmp_path / "project",
                         capture_output=True, text=True)
    assert cli.returncode == 0, cli.stdout + cli.stderr


@pytest.mark.asyncio
async def test_an_invalid_config_is_shown_once_and_read_again_when_fixed(tmp_path):
    files = {"pyproject.toml": '[tool.breakscan]\nselect = ["BRK999"]\n', "train.py": BREAKING}
    async with editor(tmp_path, files) as client:
        uri = open_doc(client, "train.py")
        assert await diagnostics(client, uri, 1) == []
        change_doc(client, uri, BREAKING + "\n", 2)
        assert await diagnostics(client, uri, 2) == []
        [message] = client.messages
        assert message.type == types.MessageType.Error and "BRK999" in message.message
        (client.root / "pyproject.toml").write_text("[tool.breakscan]\nselect = [\"BRK2\"]\n")
        change_doc(client, uri, BREAKING, 3)
        assert codes(await diagnostics(client, uri, 3)) == [("BRK209", 7)]


async def code_actions(client, uri: str, diag: types.Diagnostic) -> list[types.CodeAction]:
    return await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=diag.range,
        context=types.CodeActionContext(diagnostics=[diag])))


def apply_edit(text: str, edits: list[types.TextEdit]) -> str:
    """Apply TextEdits (ASCII text: UTF-16 units are characters) as an editor does."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(p: types.Position) -> int:
        return starts[min(p.line, len(lines))] + p.character

    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[:offset(e.range.start)] + e.new_text + text[offset(e.range.end):]
    return text


def cli_diff_result(root: Path, name: str, *flags: str) -> str:
    """The file as `breakscan --diff` says `--fix` leaves it (the diff applied with `patch`)."""
    diff = subprocess.run([str(BREAKSCAN), "--diff", *flags, name], cwd=root, capture_output=True, text=True)
    assert diff.returncode == 1, diff.stderr
    copy = root.parent / "patched"
    copy.mkdir(exist_ok=True)
    (copy / name).write_text((root / name).read_text())
    subprocess.run(["patch", "-s", "-p1", "-d", str(copy)], input=diff.stdout, text=True, check=True)
    return (copy / name).read_text()


@pytest.mark.asyncio
async def test_code_action_makes_the_rewrite_of_fix_and_safe_ones_are_preferred(tmp_path):
    async with editor(tmp_path, {"train.py": BREAKING}) as client:
        uri = open_doc(client, "train.py")
        [diag] = await diagnostics(client, uri, 1)
        [action] = await code_actions(client, uri, diag)
    assert action.kind == types.CodeActionKind.QuickFix and action.is_preferred
    assert action.title.startswith("BRK209: Delete the explicit graph break")
    [change] = action.edit.document_changes
    assert change.text_document.uri == uri and change.text_document.version == 1
    fixed = apply_edit(BREAKING, change.edits)
    assert fixed == cli_diff_result(tmp_path / "project", "train.py")
    assert "graph_break" not in fixed


@pytest.mark.asyncio
async def test_unsafe_rewrite_is_offered_not_preferred_on_the_unsaved_text(tmp_path):
    unsaved = BREAKING.replace("torch._dynamo.graph_break()", "y = y * s.item()").replace("(x)", "(x, s)")
    async with editor(tmp_path, {"train.py": "import torch\n"}) as client:
        uri = open_doc(client, "train.py", text=unsaved)
        [diag] = await diagnostics(client, uri, 1)
        assert diag.code == "BRK102"
        [action] = await code_actions(client, uri, diag)
        # what `--diff --unsafe-fixes` makes of the same text on disk
        (client.root / "train.py").write_text(unsaved)
        expected = cli_diff_result(client.root, "train.py", "--unsafe-fixes")
    assert action.is_preferred is False and action.title.endswith("(unsafe fix)")
    assert apply_edit(unsaved, action.edit.document_changes[0].edits) == expected


@pytest.mark.asyncio
async def test_hover_on_a_finding_shows_the_fix_and_the_graph_break_link(tmp_path):
    async with editor(tmp_path, {"train.py": BREAKING}) as client:
        uri = open_doc(client, "train.py")
        await diagnostics(client, uri, 1)
        hover = await client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=6, character=10)))
        elsewhere = await client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=5, character=4)))
    assert hover.contents.kind == types.MarkupKind.Markdown
    text = hover.contents.value
    assert text.startswith("**BRK209**")
    assert "**Fix:** Remove it once the debugging it served is done" in text
    assert "[GB0025](https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0025.html)" in text
    assert elsewhere is None


def test_server_without_pygls_says_how_to_install(tmp_path):
    # A Python that cannot import pygls: its import is blocked by a module on the path that raises.
    (tmp_path / "pygls.py").write_text("raise ImportError('no pygls here')\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    out = subprocess.run([str(BREAKSCAN), "server"], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 2
    assert out.stderr.strip() == "breakscan: error: `breakscan server` needs pygls: pip install 'breakscan[lsp]'"


def readme_neovim_config() -> str:
    """The Lua block of the README's Neovim section, as written."""
    text = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    section = text.split("### Neovim", 1)[1]
    return section.split("```lua\n", 1)[1].split("```", 1)[0]


@pytest.mark.skipif(shutil.which("nvim") is None, reason="Neovim is not installed (apt-get install neovim)")
def test_readme_neovim_config_shows_diagnostics_hover_and_applies_the_quick_fix(tmp_path):
    (tmp_path / "init.lua").write_text(readme_neovim_config(), encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir()
    (project / "train.py").write_text(BREAKING, encoding="utf-8")
    env = {**os.environ, "PATH": f"{BREAKSCAN.parent}{os.pathsep}{os.environ['PATH']}",
           "BREAKSCAN_CACHE_DIR": str(tmp_path / "cache"), "XDG_STATE_HOME": str(tmp_path / "state")}
    check = Path(__file__).resolve().parent / "data" / "nvim_check.lua"
    out = subprocess.run(["nvim", "--headless", "-u", str(tmp_path / "init.lua"), "train.py",
                          "-c", f"luafile {check}"], cwd=project, env=env, capture_output=True, text=True,
                         timeout=180)
    lines = out.stdout.splitlines()
    assert lines[0] == ("diagnostic: breakscan BRK209 7:5 `torch._dynamo.graph_break()` asks Dynamo to break "
                        "the graph here"), out.stdout + out.stderr
    assert lines[1] == "hover: **BRK209** Explicit `torch._dynamo.graph_break()` (predicted graph break)"
    assert lines[2] == "code action: BRK209: Delete the explicit graph break (it does nothing in eager code) (preferred)"
    assert lines[4:] == ["  " + line for line in BREAKING.replace("    torch._dynamo.graph_break()\n", "").splitlines()]
