"""Latency of `breakscan server`: from a document's didOpen (or didChange) to its diagnostics.

A real LSP client (pytest-lsp's, over stdio, as an editor talks to the server) opens a workspace,
waits for the first scan (the server's warm-up, on an empty cache), then opens one file, closes
it and opens it again `--repeat` times, and edits it (an unsaved change: a new function at the
file's end, which nothing calls, so the server reuses its compile regions, see
breakscan.static.region_pass; an edit that adds a call in compiled code computes them again) as
often. Each figure is
the wall time from sending the notification to receiving the file's publishDiagnostics, and the
server process's CPU time (user + system, from /proc) over the same interval: on a loaded machine
the CPU time is the steadier figure.

Usage: python bench/lsp_latency.py [--root DIR] [--file REL] [--repeat N] [--cache-dir DIR]
Defaults: this repository as the workspace, breakscan/static/engine.py as the file.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pytest_lsp import ClientServerConfig, client_capabilities

ROOT = Path(__file__).resolve().parent.parent
BREAKSCAN = Path(sys.executable).parent / "breakscan"


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of process `pid` so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def scanned_files(root: Path) -> int:
    """How many files the static pass scans in `root` (its config's excludes, .gitignore)."""
    from breakscan.config import find_pyproject, load_config
    from breakscan.static.discovery import iter_python_files

    config = load_config(find_pyproject(root))
    return sum(1 for _ in iter_python_files([root], root=root, exclude=config.exclude,
                                            respect_gitignore=config.respect_gitignore))


async def idle(pid: int, quiet_s: float = 0.5) -> None:
    """Wait until the server has used no CPU for `quiet_s` seconds (its scan has ended)."""
    before = cpu_s(pid)
    while True:
        await asyncio.sleep(quiet_s)
        now = cpu_s(pid)
        if now - before < 0.02:
            return
        before = now


async def published(client, uri: str, version: int) -> list:
    while True:
        params = await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        if params.uri == uri and params.version == version:
            return list(params.diagnostics)


async def timed(client, pid: int, send, uri: str, version: int) -> tuple[float, float, int]:
    """(wall s, server CPU s, diagnostics) from `send()` to the diagnostics of `uri` at `version`."""
    wall, cpu = time.perf_counter(), cpu_s(pid)
    send()
    diags = await asyncio.wait_for(published(client, uri, version), 600)
    return time.perf_counter() - wall, cpu_s(pid) - cpu, len(diags)


async def main(root: Path, rel: str, repeat: int, cache_dir: Path | None) -> None:
    with tempfile.TemporaryDirectory(prefix="breakscan-lsp-bench-") as tmp:
        env = {**os.environ, "BREAKSCAN_CACHE_DIR": str(cache_dir or tmp)}
        client = await ClientServerConfig(server_command=[str(BREAKSCAN), "server"], server_env=env).start()
        try:
            await measure(client, root, rel, repeat, "filled" if cache_dir else "empty")
        except BaseException:
            client._server.kill()  # pytest-lsp's stop() would wait for it
            raise
        finally:
            await client.stop()


async def measure(client, root: Path, rel: str, repeat: int, cache: str) -> None:
    """Open, re-open and edit `rel` in the workspace `root`; print the figures."""
    path = (root / rel).absolute()
    uri, text = path.as_uri(), path.read_text(encoding="utf-8")
    pid = client._server.pid
    start = time.perf_counter()
    await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)]))
    version = 1

    def open_doc() -> None:
        client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
            uri=uri, language_id="python", version=version, text=text)))

    wall, cpu, n = await timed(client, pid, open_doc, uri, version)
    print(f"workspace {root} ({scanned_files(root)} Python files scanned), file {rel}: {n} diagnostics")
    print(f"first open, {cache} cache (waits for the server's first scan): {time.perf_counter() - start:.2f} s wall "
          f"from initialize, {wall:.2f} s from didOpen, server CPU {cpu:.2f} s")
    opens, changes = [], []
    for i in range(repeat):
        client.text_document_did_close(types.DidCloseTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=uri)))
        await idle(pid)  # the scan that follows the close ends first
        version += 1
        opens.append(await timed(client, pid, open_doc, uri, version))
    for i in range(repeat):
        version += 1
        edited = text + f"\n\ndef _bench_{i}(x):\n    return x\n"

        def change(v=version, t=edited) -> None:
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=v),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=t)]))

        changes.append(await timed(client, pid, change, uri, version))
    for label, runs in (("open, warm server", opens), ("unsaved change, warm server", changes)):
        walls, cpus = [r[0] for r in runs], [r[1] for r in runs]
        print(f"{label}: wall median {statistics.median(walls):.3f} s (max {max(walls):.3f}), "
              f"server CPU median {statistics.median(cpus):.3f} s (max {max(cpus):.3f}), n={len(runs)}")
    await client.shutdown_session()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT)
    parser.add_argument("--file", default="breakscan/static/engine.py")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--cache-dir", type=Path, default=None,
                        help="BREAKSCAN_CACHE_DIR for the server (default: a new, empty one)")
    args = parser.parse_args()
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"load average at start: {load} ({os.cpu_count()} CPUs)")
    asyncio.run(main(args.root.absolute(), args.file, args.repeat, args.cache_dir))
