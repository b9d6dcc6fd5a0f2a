"""Shared helpers: scan source snippets with the real catalog and the real static pass."""

from __future__ import annotations

import atexit
import importlib.util
import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import shutil

import pytest

from breakscan.catalog import load_catalog
from breakscan.static.engine import scan_files

# Never read or write the user's cache from tests; remove the one made here when the run ends.
if "BREAKSCAN_CACHE_DIR" not in os.environ:
    _TEST_CACHE = tempfile.mkdtemp(prefix="breakscan-test-cache-")
    os.environ["BREAKSCAN_CACHE_DIR"] = _TEST_CACHE
    atexit.register(shutil.rmtree, _TEST_CACHE, ignore_errors=True)

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
HAS_TORCH = importlib.util.find_spec("torch") is not None
requires_torch = pytest.mark.skipif(not HAS_TORCH, reason="torch is not installed (dynamic extra)")


def torch_ops_tag(tag: str) -> dict:
    """One tag of rules/data/torch-ops.json (written by scripts/refresh_torch_data.py)."""
    return json.loads((ROOT / "rules" / "data" / "torch-ops.json").read_text(encoding="utf-8"))["tags"][tag]


def write_files(tmp_path: Path, files: dict[str, str]) -> list[Path]:
    """Write {relative name: source} under tmp_path (dedented); return the paths."""
    paths = []
    for name, source in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source), encoding="utf-8")
        paths.append(path)
    return paths


def default_sigint() -> None:
    """`preexec_fn` for a child a test sends Ctrl-C: SIGINT back to its default disposition. A
    non-interactive shell starts background jobs with SIGINT ignored (`pytest ... &` in a CI
    script), children inherit that, and Python then installs no KeyboardInterrupt handler."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def cli_findings(project: Path, *args: str, cache: Path | None = None) -> list[dict]:
    """Run `breakscan ARGS --format json --exit-zero` in `project` (this checkout's breakscan on
    PYTHONPATH; `cache`: BREAKSCAN_CACHE_DIR); return its findings. Fails the test on a non-zero exit."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    if cache is not None:
        env["BREAKSCAN_CACHE_DIR"] = str(cache)
    proc = subprocess.run([sys.executable, "-m", "breakscan", *args, "--format", "json", "--exit-zero"],
                          cwd=project, env=env, capture_output=True, text=True, timeout=400)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["findings"]


def run_findings(project: Path, script: str, module: bool = False) -> list[dict]:
    """Run `breakscan run --show-refuted SCRIPT` in `project` (its options before the script, which
    takes the rest of the command line; `module`: SCRIPT is a module run as `-m pkg.mod`, a package
    with relative imports) with a JSON report and a cache inside `project`; return the report's
    findings. Fails the test on a non-zero exit."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "BREAKSCAN_CACHE_DIR": str(project / "cache")}
    proc = subprocess.run([sys.executable, "-m", "breakscan", "run", "--show-refuted", "--format", "json",
                           "-o", "report.json", "--exit-zero", *(["-m"] if module else []), script],
                          cwd=project, env=env, capture_output=True, text=True, timeout=400)
    assert proc.returncode == 0, proc.stderr
    return json.loads((project / "report.json").read_text())["findings"]


def located(findings: list[dict]) -> set[tuple[str, str, int]]:
    """{(rule id, file name, line)}."""
    return {(f["rule_id"], Path(f["path"]).name, f["line"]) for f in findings}


def break_statuses(findings: list[dict]) -> set[tuple[str, str, int, str]]:
    """{(rule id, file name, line, status)} of the graph breaks and frame fallbacks among `findings`."""
    return {(*located([f]).pop(), f["status"]) for f in findings if f["kind"] in ("graph-break", "frame-fallback")}


def assert_dynamo_confirms(found: set[tuple[str, str, int, str]], expected) -> None:
    """Every (rule id, file name, line) of `expected` is among `found` (break_statuses) as
    confirmed, and no break is refuted, left a prediction or only observed."""
    for rule, name, line in expected:
        assert (rule, name, line, "confirmed") in found, found
    assert not {f for f in found if f[3] in ("refuted", "predicted", "observed")}, found


def assert_script_flags(tmp_path: Path, source: str, expected, quiet_lines=()) -> None:
    """The static pass over `source` (as train.py) flags every (rule id, line) of `expected`
    and nothing on `quiet_lines`."""
    found = rule_lines(static_findings(tmp_path, {"train.py": source}))
    for hit in expected:
        assert hit in found, found
    assert not {(r, line) for r, line in found if line in quiet_lines}, found


def assert_script_confirms(tmp_path: Path, source: str, expected) -> None:
    """Write `source` as train.py in `tmp_path`, run `breakscan run train.py` on it, and check
    that Dynamo confirms every (rule id, line) of `expected` and observes nothing else
    (assert_dynamo_confirms)."""
    write_files(tmp_path, {"train.py": source})
    found = break_statuses(run_findings(tmp_path, "train.py"))
    assert_dynamo_confirms(found, [(rule, "train.py", line) for rule, line in expected])


def assert_package_confirms(tmp_path: Path, files: dict[str, str], module: str, expected) -> None:
    """Write the package `files` in `tmp_path`, run `breakscan run -m module` on it, and check that
    Dynamo confirms every (rule id, file name, line) of `expected` and observes nothing else
    (assert_dynamo_confirms)."""
    write_files(tmp_path, files)
    assert_dynamo_confirms(break_statuses(run_findings(tmp_path, module, module=True)), expected)


def static_located(tmp_path: Path, files: dict[str, str], regions: str = "modules") -> set[tuple[str, str, int]]:
    """{(rule id, file name, line)} of the static findings over the snippet files `files`
    (static_findings)."""
    return {(f.rule_id, Path(f.path).name, f.line) for f in static_findings(tmp_path, files, regions)}


def static_findings(tmp_path: Path, files: dict[str, str] | str, regions: str = "modules"):
    """Run the static pass over snippet files with every catalog rule; return findings."""
    if isinstance(files, str):
        files = {"model.py": files}
    paths = write_files(tmp_path, files)
    return scan_files(paths, list(load_catalog().values()), regions_mode=regions).findings


def rule_lines(findings) -> set[tuple[str, int]]:
    """{(rule id, line)} of findings."""
    return {(f.rule_id, f.line) for f in findings}


@pytest.fixture(autouse=True)
def _dynamo_disallowed_ops_restored(request):
    """Loading BRK250's breaking example calls `torch._dynamo.disallow_in_graph` on a torch op,
    which lasts for the process: allow the ops a test disallowed again afterwards."""
    rules = sys.modules.get("torch._dynamo.trace_rules")
    if rules is None and HAS_TORCH and request.node.get_closest_marker("dynamic"):
        import torch._dynamo.trace_rules as rules  # noqa: PLC0415 (loading it disallows `graph_break` & co.)
    # Only when Dynamo was loaded before the test: its import disallows `graph_break` & co. itself.
    saved = set(rules._disallowed_callable_ids.function_ids or ()) if rules is not None else None
    yield
    if saved is not None and rules._disallowed_callable_ids.function_ids:
        for fn_id in rules._disallowed_callable_ids.function_ids - saved:
            rules._disallowed_callable_ids.remove(fn_id)
            rules._allowed_callable_ids.add(fn_id)


@pytest.fixture(autouse=True)
def _dynamo_reorderable_logging_restored():
    """Loading a module fixed for BRK201 adds `print` to Dynamo's process-wide
    `reorderable_logging_functions`; put the set back so no other test sees it."""
    config = sys.modules.get("torch._dynamo.config")
    saved = set(config.reorderable_logging_functions) if config is not None else set()
    yield
    config = sys.modules.get("torch._dynamo.config")
    if config is not None and config.reorderable_logging_functions != saved:
        config.reorderable_logging_functions.clear()
        config.reorderable_logging_functions.update(saved)
