"""The parent side of the dynamic pass: run `probe` in a child process and turn its records into Findings.

Importable without torch. The child (`breakscan.dynamic.probe`, see `probe_command`) runs in its own
process group with its output captured, so user prints, crashes, hangs and `sys.exit` never
reach breakscan; they become BRK902 (user code raised) / BRK903 (dynamic pass crashed, timed
out, killed, or exited) error findings, keeping the findings of entries finished before.

Finding conventions (observed by Dynamo, status OBSERVED):
- placement (`primary_frame`): the innermost stack frame inside the project, else the innermost
  one that is neither torch nor the standard library, never code without a file (`<string>`).
- graph break / frame fallback: `rule_id` = Dynamo's graph-break id (`GB0124`), `DYN000` when
  the message has none; de-duplicated per entry on (file, line, graph-break type).
- recompile: `rule_id` `BRK510`, one finding per guard failure, de-duplicated on
  (file, line, guard); located at the guarded source line when Dynamo names one, else at the
  compiled function's `def` line. `extra["guard_class"]` classifies the guard (see `guards`).
- recompile-limit hit (the function runs eagerly from then on): `rule_id` `BRK904`, kind error.

Child sharing: `run_dynamic_many` runs several target files in one child (Dynamo's set-up is
paid once; `torch._dynamo.reset()` between targets). `--timeout` applies per target (the first
one's clock starts with the child). When the child dies mid-way (segfault, `os._exit`,
timeout, killed), the target it was running gets the BRK903 finding as before, and the
targets after it are re-run in a fresh child, so nothing is lost. `run_dynamic` (one target)
is the one-element case.

Run mode: `run_program` runs a user's program unchanged (`breakscan run`), stdio passed
through, and reports every compiled region it executed plus its exit code.

Ctrl-C / SIGTERM: the caller's `stop` (breakscan.interrupt) is forwarded to the child's
process group once, a second signal kills the group; the records written so far are kept and
the results say `interrupted` (no BRK903 for a stop the user asked for).
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import json
import linecache
import os
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from breakscan.dynamic import guards, parse
from breakscan.dynamic.entries import parse_entry
from breakscan.findings import EntryReport, Finding, Frame, Kind, Severity, Status

PACKAGE_PARENT = Path(__file__).resolve().parent.parent.parent
BREAKSCAN_DIR = str(Path(__file__).resolve().parent.parent) + os.sep
RULE_USER_RAISED = "BRK902"
RULE_PASS_FAILED = "BRK903"
RULE_NO_GB_ID = "DYN000"
POLYFILL_RE = re.compile(r"[/\\]torch[/\\]_dynamo[/\\]polyfills[/\\]")
RULE_RECOMPILE = "BRK510"
RULE_RECOMPILE_LIMIT = "BRK904"
KILL_GRACE_S = 2.0  # seconds between SIGTERM (child dumps its stack) and SIGKILL
INTERRUPT_GRACE_S = 5.0  # examples mode: seconds from a forwarded Ctrl-C to SIGKILL
LIBRARY_MARKERS = (f"{os.sep}site-packages{os.sep}", f"{os.sep}dist-packages{os.sep}")
FAULT_FRAME_RE = re.compile(r'^\s*File "(?P<path>[^"]+)", line (?P<line>\d+) in (?P<func>\S+)')
SENTENCE_END_RE = re.compile(r"(?<!e\.g)(?<!i\.e)(?<!etc)\.\s")
USELESS_HINTS = ("Please report an issue to PyTorch", "This graph break is fundamental",
                 "This is likely to be a Dynamo bug")


@dataclass
class DynamicResult:
    """What the dynamic pass observed: findings (status OBSERVED), per-entry facts, traced lines."""

    findings: list[Finding] = field(default_factory=list)
    entries: list[EntryReport] = field(default_factory=list)
    traced_lines: dict[str, set[int]] = field(default_factory=dict)  # abs path -> traced, unbroken lines
    device: str = ""
    torch_version: str = ""
    interrupted: bool = False  # Ctrl-C/SIGTERM stopped the pass before this target finished (or began)


def torch_available() -> bool:
    """True when `torch` is importable in this interpreter (checked with find_spec, never imported)."""
    return importlib.util.find_spec("torch") is not None


Target = tuple[Path, "str | None"]
ProgressFn = Callable[[dict[str, Any]], None]
if TYPE_CHECKING:
    from breakscan.interrupt import Interrupt


def run_dynamic(
    target: Path,
    *,
    project_root: Path,
    entry: str | None = None,
    device: str = "auto",
    timeout: float = 300.0,
    backend: str = "eager",
    python: str | None = None,
    stop: Interrupt | None = None,
) -> DynamicResult:
    """Run the examples of `target` under Dynamo in a child process and report what it saw.

    `entry` names an examples function (same contract as the module-level
    `breakscan_examples()`): `FUNC` in `target`, or `FILE:FUNC` with FILE relative to
    `project_root`; without it, `target`'s `breakscan_examples` is used. `device` is
    `auto|cpu|cuda`; `timeout` is the wall-clock limit in seconds for the child;
    `backend` is the `torch.compile` backend; `python` the interpreter (default: this one).
    Never raises for anything user code does: crashes, hangs, exits and exceptions become
    BRK902/BRK903 findings. Raises OSError only if the child cannot be started at all.
    `stop`: see `run_dynamic_many`.
    """
    if entry is not None and ":" in entry:
        parsed = parse_entry(entry, Path(project_root))
        target, entry = parsed.path, parsed.function
    return run_dynamic_many([(Path(target), entry)], project_root=project_root, device=device,
                            timeout=timeout, backend=backend, python=python, stop=stop)[0]


def run_dynamic_many(
    targets: list[tuple[Path, str | None]],
    *,
    project_root: Path,
    device: str = "auto",
    timeout: float = 300.0,
    backend: str = "eager",
    python: str | None = None,
    progress: ProgressFn | None = None,
    stop: Interrupt | None = None,
    dynamo_config: dict[str, Any] | None = None,
) -> list[DynamicResult]:
    """Run several targets in one child; one DynamicResult per target, in order.

    A target is (file, name of its examples function, or None for `breakscan_examples`).
    `dynamo_config` (the checked `[tool.breakscan] dynamo-config`) is applied to
    `torch._dynamo.config` in the child before user code is imported.

    `timeout` is per target. If the child dies, the target it was in gets the crash finding
    and the remaining targets run in a fresh child. `progress` is called (in this thread)
    with each `entry_end` and `done` record as the child writes it. `stop` (see
    breakscan.interrupt) is polled: once it holds a signal, the child's group gets it and no
    further child starts; the target that was running keeps what it recorded, and it and the
    targets after it come back with `interrupted` set.
    """
    project_root = Path(project_root).resolve()
    resolved = [(Path(t).resolve(), e) for t, e in targets]
    results: list[DynamicResult | None] = [None] * len(resolved)
    pending = list(range(len(resolved)))
    while pending:
        if stop:  # interrupted: the targets left never run
            for i in pending:
                results[i] = DynamicResult(interrupted=True)
            break
        request = {
            "targets": [{"index": i, "target": str(resolved[i][0]), "entry": resolved[i][1]} for i in pending],
            "device": device, "backend": backend, "project_root": str(project_root),
            "dynamo_config": _table(dynamo_config),
        }
        workdir = Path(tempfile.mkdtemp(prefix="breakscan-dyn-"))
        try:
            outcome = _run_child(request, workdir, python or sys.executable, timeout, project_root,
                                 progress=progress, stop=stop)
            records = read_records(workdir / "result.jsonl")
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        start, by_target = split_records(records)
        ok = ChildOutcome(returncode=0, timed_out=False, seconds=outcome.seconds)
        for i in pending:
            recs = by_target.get(i)
            if recs is None:
                continue
            done = any(r.get("type") == "done" for r in recs)
            results[i] = build_result([start, *recs], ok if done else outcome, target=resolved[i][0],
                                      project_root=project_root, timeout=timeout)
            results[i].interrupted = bool(outcome.interrupted) and not done
        left = [i for i in pending if results[i] is None]
        if outcome.interrupted:
            for i in left:
                results[i] = DynamicResult(interrupted=True)
            break
        if len(left) == len(pending):  # the child died before its first target: same fate for all
            for i in left:
                results[i] = build_result([start] if start else [], outcome, target=resolved[i][0],
                                          project_root=project_root, timeout=timeout)
            left = []
        pending = left
    return [r for r in results if r is not None]


def _table(dynamo_config: dict[str, Any] | None) -> dict[str, Any]:
    """The checked dynamo-config table as JSON for the child (function sets as sorted lists)."""
    return {k: sorted(v) if isinstance(v, frozenset) else v for k, v in (dynamo_config or {}).items()}


def split_records(records: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[int, list[dict[str, Any]]]]:
    """(the `start` record, {target index: its records}) from a multi-target child's output."""
    start: dict[str, Any] = {}
    groups: dict[int, list[dict[str, Any]]] = {}
    current: list[dict[str, Any]] | None = None
    for r in records:
        t = r.get("type")
        if t == "start":
            start = r
        elif t == "target_start":
            current = groups.setdefault(int(r.get("index", 0)), [])
        elif current is not None:
            current.append(r)
    return start, groups


def run_program(
    *,
    script: str | None = None,
    module: str | None = None,
    argv: list[str] | None = None,
    cwd: Path,
    project_root: Path,
    device: str = "auto",
    timeout: float = 300.0,
    backend: str | None = None,
    python: str | None = None,
    stop: Interrupt | None = None,
    dynamo_config: dict[str, Any] | None = None,
) -> tuple[DynamicResult, int | None]:
    """Run a user's program unchanged (`breakscan run`) with Dynamo's logs captured.

    `dynamo_config` (`[tool.breakscan] dynamo-config`) is applied before the program starts.
    The program's stdin/stdout/stderr are this process's; it runs from `cwd`. Returns the
    findings (every compiled region it executed: breaks, fallbacks, recompiles, limit hits;
    BRK902 for an uncaught exception, BRK903 for a non-zero `sys.exit`, `os._exit`, a crash or
    a timeout) and its exit code (None when killed on timeout; negative for a signal).
    `backend`, when given, replaces the backend of every `torch.compile` in the program.
    `stop` (breakscan.interrupt): a signal on it is forwarded to the program's process group
    and the program finishes as it chooses (its `except KeyboardInterrupt:` runs); a second
    one kills the group. `result.interrupted` is then set, and the program's KeyboardInterrupt
    is not a finding.
    """
    project_root = Path(project_root).resolve()
    target = Path(script).resolve() if script else Path(module_path(module or "", cwd) or cwd)
    label = f"run:{relative_label(target, project_root)}" if script else f"run:-m {module}"
    workdir = Path(tempfile.mkdtemp(prefix="breakscan-run-"))
    try:
        request = {
            "mode": "run", "script": str(target) if script else None, "module": module,
            "argv": list(argv or []), "label": label, "main_path": str(target), "device": device,
            "backend": backend, "project_root": str(project_root), "fault_file": str(workdir / "fault.txt"),
            "dynamo_config": _table(dynamo_config),
        }
        outcome = _run_child(request, workdir, python or sys.executable, timeout, Path(cwd), passthrough=True,
                             stop=stop)
        records = read_records(workdir / "result.jsonl")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    done = next((r for r in records if r.get("type") == "done"), None)
    code = int(done.get("exit_code", 0)) if done else (None if outcome.timed_out else outcome.returncode)
    result = build_result(records, outcome, target=target, project_root=project_root, timeout=timeout)
    from breakscan.dynamic.multirank import ddp_split_findings  # (it imports this module)

    result.findings += ddp_split_findings(records, project_root, label)  # DDP on a single rank
    result.entries = [_program_entry(e, records, result.findings) for e in result.entries]
    result.interrupted = bool(outcome.interrupted)
    for f in result.findings:
        if f.rule_id in (RULE_USER_RAISED, RULE_PASS_FAILED):
            f.extra["exit_code"] = code
    return result, code


def relative_label(path: Path, root: Path) -> str:
    """`path` relative to `root` when inside it, else its name."""
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return path.name


def module_path(module: str, cwd: Path) -> str | None:
    """The file `python -m module` would run, found without importing anything (or None).

    Looks in `cwd` first (as `-m` does), then on this interpreter's `sys.path`.
    """
    import importlib.machinery

    parts = module.split(".")
    spec = importlib.machinery.PathFinder.find_spec(parts[0], [str(cwd), *sys.path])
    if spec is None or not spec.origin and not spec.submodule_search_locations:
        return None
    base = Path(spec.origin).parent if spec.origin and spec.origin.endswith("__init__.py") else None
    if base is None and spec.submodule_search_locations:
        base = Path(list(spec.submodule_search_locations)[0])
    if len(parts) == 1:
        if base is not None:
            main = base / "__main__.py"
            return str(main) if main.exists() else str(base)
        return spec.origin
    if base is None:
        return None
    sub = base.joinpath(*parts[1:])
    for cand in (sub.with_suffix(".py"), sub / "__main__.py"):
        if cand.exists():
            return str(cand)
    return None


def _program_entry(rep: EntryReport, records: list[dict[str, Any]], findings: list[Finding]) -> EntryReport:
    """Run mode's one entry: graphs and ops from the frames the program compiled."""
    ops = [int(r.get("graph_op_count") or 0) for r in records if r.get("type") == "compiled"]
    rep.graphs, rep.ops_per_graph = len(ops), ops
    rep.timeline = call_order(program_order(records, rep.name), findings)
    rep.calls = 0  # the program's calls of compiled functions are not observed in run mode
    rep.recompiles = count_recompiles(records, rep.name)
    return rep


def count_recompiles(records: list[dict[str, Any]], entry: str) -> int:
    """How often `entry` was recompiled, from its `recompile` records.

    Examples mode (records carry their call number): the calls that recompiled. Run mode (no
    call numbers): each frame's recompile, except a resume function's (the rest of a frame
    after a break) that follows its root function's recompile: the same guard failure.
    """
    follow = follow_ups(records)
    recs = [(i, r) for i, r in enumerate(records) if r.get("type") == "recompile" and r.get("entry") == entry]
    if any(r.get("call") for _, r in recs):
        return len({r.get("call") for _, r in recs})
    return sum(1 for i, _ in recs if i not in follow)


def follow_ups(records: list[dict[str, Any]]) -> set[int]:
    """Indices of the `recompile` records of a resume function (the rest of a frame after a
    break) that follow its root function's recompile in the same entry and call (run mode has
    no call numbers: the last root recompile): the same guard failure, seen again."""
    out: set[int] = set()
    roots: dict[tuple[Any, Any], str] = {}
    for i, r in enumerate(records):
        if r.get("type") != "recompile":
            continue
        key = (r.get("entry"), r.get("call"))
        if not parse.is_resume(r.get("function", "")):
            roots[key] = r.get("root_function", "")
        elif roots.get(key) == r.get("root_function"):
            out.add(i)
    return out


@dataclass
class ChildOutcome:
    """How the child ended: exit code (negative = signal), timed out, captured output tails."""

    returncode: int | None
    timed_out: bool
    seconds: float
    stdout_tail: str = ""
    stderr_tail: str = ""
    interrupted: int = 0  # the signal forwarded to the child on the user's Ctrl-C/SIGTERM (0: none)


# The child's `python -c` program: take the working directory (`""`) off sys.path, import the
# probe from the breakscan this process runs (its parent directory first on sys.path for that
# import only), and let the probe decide whether the working directory goes back on
# (`probe.main`). A `breakscan/` tree in the user's working directory (a contributor's
# checkout) can then never stand in for it, nor a package's own `typing.py` for the standard
# library's while the probe and torch import.
PROBE_BOOTSTRAP = """\
import sys
cwd_on_path = bool(sys.path) and sys.path[0] == ""
if cwd_on_path:
    del sys.path[0]
sys.path.insert(0, sys.argv.pop(1))
import breakscan.dynamic.probe as probe
del sys.path[0]
sys.exit(probe.main(sys.argv[1:], cwd_on_path=cwd_on_path))
"""


def probe_command(python: str, request: Path, result: Path) -> list[str]:
    """The child's command line: `python -c PROBE_BOOTSTRAP PACKAGE_PARENT REQUEST RESULT`."""
    return [python, "-c", PROBE_BOOTSTRAP, str(PACKAGE_PARENT), str(request), str(result)]


def _child_env() -> dict[str, str]:
    """The child's environment: no user TORCH_LOGS/TORCH_TRACE (we set logs); UTF-8 stdio."""
    env = dict(os.environ)
    env["PYTHONIOENCODING"] = "utf-8"
    for var in ("TORCH_LOGS", "TORCH_TRACE", "TORCH_COMPILE_DEBUG"):
        env.pop(var, None)
    return env


class _RecordTail:
    """Reads complete JSON lines appended to the child's result file since the last read."""

    def __init__(self, path: Path) -> None:
        self.path, self.offset, self.buf = path, 0, b""

    def new(self) -> list[dict[str, Any]]:
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except OSError:
            return []
        self.offset += len(data)
        self.buf += data
        *lines, self.buf = self.buf.split(b"\n")
        out = []
        for line in lines:
            try:
                rec = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError):
                continue
            if isinstance(rec, dict):
                out.append(rec)
        return out


POLL_S = 0.1


def _run_child(request: dict[str, Any], workdir: Path, python: str, timeout: float, cwd: Path, *,
               passthrough: bool = False, progress: ProgressFn | None = None,
               stop: Interrupt | None = None, command: list[str] | None = None,
               groups: Callable[[], list[int]] | None = None) -> ChildOutcome:
    """Start the probe in its own session and watch it; kill its group when a target overruns.

    The `timeout` clock restarts at each `target_start` record (the first one's includes the
    child's start). `passthrough`: the child shares this process's stdio (run mode), and
    faulthandler dumps go to the request's `fault_file`; else stdout/stderr are captured.
    Its own session keeps a terminal's Ctrl-C from reaching the child directly; `stop`'s
    signals reach it by `_on_interrupt` only, once each.
    `command` replaces the probe's command line (multirank: torchrun's launcher); `groups`
    gives further process groups (torchrun's ranks, each in its own session) that a timeout or
    a second Ctrl-C kills with the child's.
    """
    req_path, res_path = workdir / "request.json", workdir / "result.jsonl"
    req_path.write_text(json.dumps(request), encoding="utf-8")
    res_path.touch()
    cmd = command or probe_command(python, req_path, res_path)
    t0 = time.monotonic()
    deadline = t0 + timeout
    tail = _RecordTail(res_path)
    out_path = workdir / "stdout.txt"
    err_path = Path(request["fault_file"]) if passthrough and request.get("fault_file") else workdir / "stderr.txt"
    with open(out_path, "wb") as out, open(workdir / "stderr.txt", "wb") as err:
        stdio = {} if passthrough else {"stdin": subprocess.DEVNULL, "stdout": out, "stderr": err}
        proc = subprocess.Popen(cmd, cwd=str(cwd), env=_child_env(), start_new_session=True, **stdio)
        timed_out = False
        acted, kill_at = 0, None  # signals of `stop` acted on; when a forwarded one turns into SIGKILL
        try:
            while True:
                try:
                    proc.wait(timeout=POLL_S)
                    break
                except subprocess.TimeoutExpired:
                    pass
                for rec in tail.new():
                    if rec.get("type") == "target_start":
                        deadline = time.monotonic() + timeout
                    _notify(progress, rec)
                if stop is not None and stop.count > acted:
                    acted, kill_at = _on_interrupt(proc, stop, acted, kill_at, passthrough)
                if stop is not None and stop.count >= 2 and groups is not None:
                    _signal_groups(groups(), signal.SIGKILL)
                if kill_at is not None and time.monotonic() > kill_at:
                    _signal_group(proc, signal.SIGKILL)
                    kill_at = None
                if time.monotonic() > deadline:
                    timed_out = True
                    if groups is not None:  # each rank dumps its stack (faulthandler) and ends
                        _signal_groups(groups(), signal.SIGTERM)
                    _kill_group(proc)
                    break
        except BaseException:  # KeyboardInterrupt: never leave the child behind
            _kill_group(proc)
            if groups is not None:
                _signal_groups(groups(), signal.SIGKILL)
            raise
        if acted:  # what is left of the group (the program's own children) goes with it
            _signal_group(proc, signal.SIGKILL)
    for rec in tail.new():
        _notify(progress, rec)
    return ChildOutcome(
        returncode=proc.returncode,
        timed_out=timed_out,
        seconds=time.monotonic() - t0,
        stdout_tail=_tail(out_path),
        stderr_tail=_tail(err_path),
        interrupted=stop.signum if acted and stop is not None else 0,
    )


def _on_interrupt(proc: subprocess.Popen[bytes], stop: Interrupt, acted: int, kill_at: float | None,
                  passthrough: bool) -> tuple[int, float | None]:
    """Act on `stop`'s new signals: forward the first to the child's group, SIGKILL on the second.

    Examples mode (the probe stops at once on KeyboardInterrupt) turns the forwarded signal
    into SIGKILL after INTERRUPT_GRACE_S; run mode waits for the program to finish as it
    chooses (as `python prog.py` does under a terminal), bounded by the timeout. Returns the
    new (signals acted on, SIGKILL time).
    """
    if acted == 0:
        _signal_group(proc, stop.signum)
        kill_at = None if passthrough else time.monotonic() + INTERRUPT_GRACE_S
    if stop.count >= 2:
        _signal_group(proc, signal.SIGKILL)
        kill_at = None
    return stop.count, kill_at


def _signal_group(proc: subprocess.Popen[bytes], sig: int) -> None:
    """Send `sig` to the child's process group (gone already: nothing to do)."""
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _signal_groups(pids: list[int], sig: int) -> None:
    """Send `sig` to each process group led by one of `pids` (gone already: skipped)."""
    for pid in pids:
        try:
            os.killpg(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


def _notify(progress: ProgressFn | None, rec: dict[str, Any]) -> None:
    if progress is not None and rec.get("type") in ("entry_end", "done"):
        try:
            progress(rec)
        except Exception:  # a progress display must never stop the pass
            pass


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM the child's process group (the probe dumps its stack), then SIGKILL it."""
    for sig, wait_s in ((signal.SIGTERM, KILL_GRACE_S), (signal.SIGKILL, 10.0)):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            proc.wait(timeout=wait_s)
            if sig == signal.SIGKILL or proc.returncode is not None:
                # The group may still hold grandchildren: make sure they go too.
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
                return
        except subprocess.TimeoutExpired:
            continue


def _tail(path: Path, limit: int = 8000) -> str:
    """The last `limit` characters of a captured output file."""
    try:
        data = path.read_bytes()
    except OSError:
        return ""
    return data[-limit:].decode("utf-8", errors="replace")


def read_records(path: Path) -> list[dict[str, Any]]:
    """The child's JSON-lines records; a truncated last line (crash mid-write) is skipped."""
    records: list[dict[str, Any]] = []
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return records
    for line in lines:
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(rec, dict):
            records.append(rec)
    return records


# ---------------------------------------------------------------- records -> findings


# breakscan's own frames (the probe, runpy under it) sit above the user's code in every stack
# the child reports. The child imports this same breakscan (`probe_command`), so its frames
# lie under BREAKSCAN_DIR: they are never a user frame, a finding's location or in its stack.


def is_breakscan(path: str) -> bool:
    """True for a file of the breakscan this process runs (the probe's own frames)."""
    return path.startswith(BREAKSCAN_DIR)


def is_library(path: str) -> bool:
    """True for files of installed packages (site-packages), torch, or breakscan itself."""
    return any(m in path for m in LIBRARY_MARKERS) or is_breakscan(path)


def in_project(path: str, root: Path) -> bool:
    """True when `path` lies inside `root` and not in an installed library below it.

    The root itself may be an installed package (scanning `site-packages/transformers`): only the
    part of `path` below `root` is checked for `site-packages` (a `.venv` inside the project).
    """
    if not path or parse.is_pseudo_path(path) or is_breakscan(path):
        return False  # `<string>` would resolve against the working directory
    try:
        rel = Path(path).resolve().relative_to(Path(root).resolve())
    except (ValueError, OSError):
        return False
    below = f"{os.sep}{rel}{os.sep}"
    return not any(m in below for m in LIBRARY_MARKERS)


def _stdlib_dirs() -> tuple[str, ...]:
    """This interpreter's standard-library directories (the child runs the same interpreter)."""
    paths = sysconfig.get_paths()
    return tuple({os.path.join(paths[k], "") for k in ("stdlib", "platstdlib") if paths.get(k)})


STDLIB_DIRS = _stdlib_dirs()
STDLIB_RE = re.compile(r"[/\\]lib[/\\]python3\.\d+[/\\](?!site-packages|dist-packages)", re.IGNORECASE)
TORCH_RE = re.compile(r"[/\\](?:site|dist)-packages[/\\]torch[/\\]")


@functools.lru_cache(maxsize=1)
def _torch_dir() -> str:
    """The installed torch package's directory (found, not imported), or ''."""
    spec = importlib.util.find_spec("torch") if torch_available() else None
    return os.path.join(os.path.dirname(spec.origin), "") if spec and spec.origin else ""


def is_torch_or_stdlib(path: str) -> bool:
    """True for files of torch itself or of Python's standard library (`inspect.py`, `runpy`).

    torch is any `site-packages/torch/` or this interpreter's torch (a source checkout); the
    standard library is this interpreter's (`sysconfig`), or any `lib/python3.X/` outside
    site-packages (a child run with another interpreter).
    """
    if TORCH_RE.search(path) or (_torch_dir() and path.startswith(_torch_dir())):
        return True
    if any(m in path for m in LIBRARY_MARKERS):
        return False
    return path.startswith(STDLIB_DIRS) or STDLIB_RE.search(path) is not None


def is_machinery(path: str) -> bool:
    """A frame no user wrote: breakscan, torch, the standard library, or code without a file."""
    return is_breakscan(path) or parse.is_pseudo_path(path) or is_torch_or_stdlib(path)


def user_stack(frames: list[dict[str, Any]], root: Path | None = None) -> list[dict[str, Any]]:
    """Drop the frames above the compiled function (runpy, the probe, torch's call machinery).

    Leading frames of breakscan, torch, the standard library or without a file go (frozen
    modules only where they lead); a library's frames stay (its code may be the compiled
    function), and so does every frame inward, but for
    trailing Dynamo polyfill frames (before 2.13 a break inside one, e.g.
    `a.data_ptr() == b.data_ptr()` traced through `polyfills.cmp_eq`, ends the stack there).
    """
    start = 0
    for i, fr in enumerate(frames):
        # `<frozen runpy>` right below the probe goes; a frozen module the user's code called
        # (`os.path.exists` breaks in `<frozen genericpath>`) is the innermost frame and stays.
        if is_breakscan(fr["path"]) or (fr["path"].startswith("<frozen") and i == start):
            start = i + 1
    rest = frames[start:]
    while (rest and len(rest) > 1 and is_machinery(rest[0]["path"])
           and not (root is not None and in_project(rest[0]["path"], root))):
        rest = rest[1:]
    while len(rest) > 1 and POLYFILL_RE.search(rest[-1]["path"]):
        rest = rest[:-1]
    return rest


SUBCLASS_HOOKS = {"__torch_function__", "__torch_dispatch__"}


def primary_frame(frames: list[dict[str, Any]], root: Path) -> dict[str, Any] | None:
    """Where to place a finding: the innermost frame inside the project, passing over a tensor
    subclass's `__torch_function__` / `__torch_dispatch__` when an outer one qualifies; when none is, the
    innermost frame of a library (neither torch nor the standard library: the library line that
    called into torch's utilities); else the innermost frame with a source file; else the innermost.
    """
    for choose in (lambda p: in_project(p, root), lambda p: not is_machinery(p),
                   lambda p: not parse.is_pseudo_path(p) and not is_breakscan(p)):
        chosen = [fr for fr in reversed(frames) if choose(fr["path"])]
        # A tensor subclass's `__torch_function__` (`super().__torch_function__(...)`) only passes
        # every torch call on: the break belongs to the line that made the call.
        found = next((fr for fr in chosen if fr.get("function") not in SUBCLASS_HOOKS), None) or next(iter(chosen), None)
        if found is not None:
            return found
    return next((fr for fr in reversed(frames) if not is_breakscan(fr["path"])), None)


def to_frames(frames: list[dict[str, Any]]) -> tuple[Frame, ...]:
    """Finding `Frame`s from frame dicts (innermost last)."""
    return tuple(Frame(path=f["path"], line=int(f["line"]), function=f.get("function", ""),
                       column=f.get("column")) for f in frames)


def _first_sentence(text: str, limit: int = 160) -> str:
    """The first sentence of `text`, at most `limit` characters."""
    text = " ".join(text.split())
    m = SENTENCE_END_RE.search(text)
    text = text[: m.start() + 1] if m and m.start() < limit else text
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _useful_hint(hints: list[str]) -> str:
    """The first hint that tells the user what to do (not 'report an issue')."""
    return next((h for h in hints if not h.startswith(USELESS_HINTS)), "")


def break_finding(ev: dict[str, Any], entry: str, root: Path, fallback: bool) -> Finding:
    """A graph-break or frame-fallback Finding from a parsed break message."""
    frames = user_stack(ev.get("stack") or [], root)
    prim = primary_frame(frames, root) or {"path": ev.get("path", ""), "line": ev.get("line", 0), "column": None}
    gb_id = ev.get("gb_id") or ""
    gb_type = ev.get("gb_type") or "graph break"
    kind = Kind.FRAME_FALLBACK if fallback else Kind.GRAPH_BREAK
    prefix = "Frame falls back to eager: " if fallback else ""
    reason = _first_sentence(ev.get("explanation", ""))
    return Finding(
        rule_id=gb_id or RULE_NO_GB_ID,
        kind=kind,
        path=prim["path"],
        line=int(prim["line"]),
        column=prim.get("column") or 1,
        end_line=int(prim["line"]) if prim.get("end_column") else None,
        end_column=prim.get("end_column"),
        message=f"{prefix}{gb_type}" + (f": {reason}" if reason else ""),
        severity=Severity.WARNING,
        status=Status.OBSERVED,
        fix=_useful_hint(ev.get("hints") or []),
        gb_ids=(gb_id,) if gb_id else (),
        explanation=ev.get("explanation", ""),
        hints=tuple(ev.get("hints") or ()),
        stack=to_frames(frames),
        entry=entry,
        code=prim.get("code", ""),
        extra={"gb_type": gb_type, "source": "dynamo"},
    )


def _fallback_event(rec: dict[str, Any]) -> dict[str, Any]:
    """A break-like event from a `compilation_metrics` record with a `fail_type`."""
    parsed = rec.get("parsed") or {}
    path = rec.get("fail_user_frame_filename") or rec.get("co_filename") or ""
    line = rec.get("fail_user_frame_lineno") or rec.get("co_firstlineno") or 0
    frame_path, frame_line = rec.get("co_filename") or "", rec.get("co_firstlineno") or 0
    stack = [{"path": path, "line": line, "function": rec.get("co_name", "") if path == frame_path else "",
              "column": None}]
    if frame_path and (frame_path, frame_line) != (path, line) and path != frame_path:
        # the frame Dynamo gave up on, outermost: where a failure deep in a library started
        stack.insert(0, {"path": frame_path, "line": frame_line, "function": rec.get("co_name", ""),
                         "column": None})
    return {
        **parsed,
        "gb_type": parsed.get("gb_type") or str(rec.get("fail_type")),
        "path": path,
        "line": line,
        "stack": stack,
        "fallback": True,
    }


def _is_limit_fallback(rec: dict[str, Any]) -> bool:
    """A `compilation_metrics` failure that is the recompile limit (reported as BRK904 instead)."""
    parsed = rec.get("parsed") or {}
    return parsed.get("gb_id") == "GB0039" or "recompile limit" in str(rec.get("fail_reason") or "").lower()


def _break_key(ev: dict[str, Any]) -> tuple[str, int, str]:
    """(file, line, graph-break type) at Dynamo's `user code at` location (the innermost frame).

    A repeated break is logged without its stack; keying on the innermost location still
    matches it to the first report.
    """
    stack = ev.get("stack") or []
    path, line = (stack[-1]["path"], stack[-1]["line"]) if stack else (ev.get("path", ""), ev.get("line", 0))
    return (path, int(line or 0), ev.get("gb_type", ""))


def _user_site(ev: dict[str, Any], root: Path) -> tuple[str, int] | None:
    """(file, line) of the user frame a break is placed at (`primary_frame`); None without a
    stack. One break inside torch (`_detect_is_causal_mask`) reached from two user lines is two
    findings."""
    found = primary_frame(ev.get("stack") or [], root)
    return (found["path"], int(found["line"] or 0)) if found is not None else None


def _error_lines(records: list[dict[str, Any]]) -> set[tuple[str, int, int]]:
    """(entry, call, line) of user errors: breaks on those lines are the error's doing."""
    out = set()
    for r in records:
        if r.get("type") == "error" and r.get("traceback"):
            out.add((r.get("entry", ""), int(r.get("call", 0)), int(r["traceback"][-1]["line"])))
    return out


def break_findings(records: list[dict[str, Any]], root: Path) -> list[Finding]:
    """Unique graph-break / fallback findings per entry, keyed on (file, line, graph-break type)."""
    skip = _error_lines(records)
    # A frame that fell back through a break Dynamo logged is also logged as `WON'T CONVERT`.
    logged = {(r.get("entry", ""), r.get("gb_type", "")) for r in records
              if r.get("type") == "break" and not r.get("escaped")}
    logged |= {(r.get("entry", ""), _fallback_event(r)["gb_type"]) for r in records if r.get("type") == "fallback"}
    chosen: dict[tuple[str, tuple[str, int, str], tuple[str, int] | None], dict[str, Any]] = {}
    for r in records:
        if r.get("type") == "break" and r.get("escaped") and (
                r.get("gb_id") == "GB0039" or (r.get("entry", ""), r.get("gb_type", "")) in logged):
            continue  # the recompile limit (BRK904, `limit_findings`), or reported from its own log
        if r.get("type") == "break":
            ev = r
        elif r.get("type") == "fallback" and not _is_limit_fallback(r):
            ev = _fallback_event(r)
        else:
            continue
        if (r.get("entry", ""), int(r.get("call", 0)), int(ev.get("line") or 0)) in skip:
            continue
        # A logged break is placed per user call site; a fallback (its frame's first line, no
        # user stack) or a break logged without its stack joins a logged report of that break.
        site = _user_site(ev, root) if r.get("type") == "break" else None
        key = (r.get("entry", ""), _break_key(ev), site)
        prev = chosen.get(key)
        chosen[key] = {**ev, "entry": r.get("entry", "")} if prev is None else _richer(prev, ev)
    for key in [k for k in chosen if k[2] is None]:
        placed = next((k for k in chosen if k[:2] == key[:2] and k[2] is not None), None)
        if placed is not None:
            chosen[placed] = _richer(chosen[placed], chosen.pop(key))
    return [break_finding(ev, ev["entry"], root, bool(ev.get("fallback"))) for ev in chosen.values()]


def _richer(prev: dict[str, Any], ev: dict[str, Any]) -> dict[str, Any]:
    """Two reports of one break: the one with the longer stack; a fallback in either makes it one."""
    better = ev if len(ev.get("stack") or []) > len(prev.get("stack") or []) else prev
    return {**better, "entry": prev["entry"], "fallback": bool(prev.get("fallback") or ev.get("fallback"))}


def _recompile_location(rec: dict[str, Any], failure: dict[str, Any], known: list[str],
                        root: Path) -> tuple[str, int]:
    """The guarded source line when Dynamo names one, else the compiled function's `def` line.

    With a user stack, the frame `primary_frame` picks (never `<string>`, a dataclass's
    generated `__init__`, nor torch's polyfills).
    """
    stack = failure.get("stack") or []
    if stack:
        prim = primary_frame(user_stack(stack, root), root)
        if prim is not None and not parse.is_pseudo_path(prim["path"]):
            return prim["path"], int(prim["line"])
    source = failure.get("source_path") or ""
    if source and failure.get("source_line") and not parse.is_pseudo_path(source):
        return failure["source_path"], int(failure["source_line"])
    tail = failure.get("source_path_tail")
    if tail and failure.get("source_line") and not parse.is_pseudo_path(tail):
        resolved = parse.resolve_tail(tail, [rec["path"], *known])
        if resolved:
            return resolved, int(failure["source_line"])
    path, line = rec["path"], int(rec["line"])
    m = parse.RESUME_RE.match(rec["function"])
    if m and guards.stack_slots(failure.get("guard", "")):
        return path, int(m.group("line"))  # a value made by the call that broke the graph there
    if parse.is_resume(rec["function"]):
        found = parse.find_def_before(path, line, rec["root_function"])
        return path, found or line
    return path, parse.def_line(path, line)


def guard_subject(guard: str) -> str:
    """A guard without its values (`n == …`, `tensor 'x' size mismatch at index 0`): the de-dup key."""
    g = guard.split("  # ", 1)[0].strip()
    g = re.sub(r"\. expected.*$", "", g)
    g = re.sub(r"(==|!=|<=|>=|<|>|\bis\b)\s.*$", r"\1 …", g)
    return re.sub(r"0x[0-9a-f]+|\b\d{6,}\b", "…", g)


@dataclass
class BreakValue:
    """What a resume function's `___stackN` holds: the values Dynamo carried over a graph break."""

    values: dict[int, str] = field(default_factory=dict)  # N -> source text (`random.random()`)
    note: str = ""  # a sentence for the message
    gb_id: str = ""  # the graph break's id (`GB0036`), for the guard class


def _span_text(frame: dict[str, Any], about: str = "") -> str:
    """The call a traceback frame's carets mark (the call in progress), or ''.

    `about` is the break's explanation: it may name the call that broke.

    Dynamo's carets may run a character long (`random.random())`): the call is the one
    starting at the first caret, as parsed by `ast`; the raw span when the line does not parse.
    """
    col, end = frame.get("column"), frame.get("end_column")
    src = linecache.getline(frame["path"], int(frame["line"] or 0))
    if not (col and end and src.strip()):
        return ""
    text = src.strip()
    start = int(col) - 1 - (len(src) - len(src.lstrip()))
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return src[int(col) - 1 : int(end) - 1].strip()
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and n.col_offset == start and n.lineno == 1]
    if not calls:
        return src[int(col) - 1 : int(end) - 1].strip()
    # Calls sharing a start (`torch.nonzero(x).size(0)`): Python runs the innermost first, so it
    # broke, unless the break message names an outer one (`Random.random`, `aten.nonzero`).
    calls.sort(key=lambda n: n.end_col_offset or 0)
    named = [n for n in calls if _callee_name(n) and re.search(rf"\b{re.escape(_callee_name(n))}\b", about)]
    return ast.get_source_segment(text, (named or calls)[0]) or ""


def _callee_name(call: ast.Call) -> str:
    """The called name: `nonzero` for `torch.nonzero(x)`, `f` for `f(x)`, '' otherwise."""
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _break_through(records: list[dict[str, Any]], entry: str, path: str, line: int,
                   func: str) -> tuple[dict[str, Any], int] | None:
    """The first break of `entry` whose stack passes `func` at path:line, and that frame's index."""
    for r in records:
        if r.get("type") != "break" or r.get("entry", "") != entry:
            continue
        for i, fr in enumerate(r.get("stack") or []):
            if fr["path"] == path and int(fr["line"]) == line and fr.get("function") == func:
                return r, i
    return None


def break_value(rec: dict[str, Any], records: list[dict[str, Any]], root: Path) -> BreakValue:
    """What the `___stackN` of a recompiled resume function hold (see `guards`).

    A resume function `torch_dynamo_resume_in_<fn>_at_<L>` continues `fn` after the call at
    line L broke the graph; its last `___stackN` argument (`rec["stack_args"]`, read by the
    child off the code object; assumed when unknown) is that call's result. The call's text
    comes from the carets of the break's frame for `fn` at line L.
    """
    m = parse.RESUME_RE.match(rec.get("function", ""))
    if not m:
        return BreakValue()
    line, func = int(m.group("line")), parse.original_function(m.group("fn"))
    found = _break_through(records, rec.get("entry", ""), rec.get("path", ""), line, func)
    if found is None:
        return BreakValue(note=f"the value comes from the graph break at line {line}")
    brk, i = found
    about = f"{brk.get('explanation', '')} {brk.get('gb_type', '')}"
    call = _span_text(brk["stack"][i], about)
    if not call:
        return BreakValue(note=f"the value comes from the graph break at line {line}", gb_id=brk.get("gb_id", ""))
    top = rec.get("stack_args")
    # The call's result is the last `___stackN`; with the depth unknown (-1), any guarded one.
    values = {int(top) - 1 if top else -1: call}
    note = f"`{call}` is the result of the call at line {line} that broke the graph: Dynamo ran it eagerly " \
           f"and compiled the rest of `{func}` for the value it returned"
    inner = primary_frame([fr for fr in brk["stack"][i + 1:] if not is_machinery(fr["path"])], root)
    if inner is not None and _span_text(inner, about):
        where = relative_label(Path(inner["path"]), root)
        note += f" (the graph broke inside it, at `{_span_text(inner, about)}`, {where}:{inner['line']})"
    return BreakValue(values=values, note=note, gb_id=brk.get("gb_id", ""))


def recompile_findings(records: list[dict[str, Any]], entries: dict[str, dict[str, Any]],
                       root: Path) -> list[Finding]:
    """One finding per guarded subject (file, line, guard without values) per entry.

    Repeats (the same guard failing with new values on later calls) are counted in
    `extra["count"]` / `extra["calls"]`. A resume function (the rest of a frame after a break)
    recompiles for the same reason as its root function in the same call: those failures
    without a source line are dropped.
    """
    roots_in_call = {
        (r.get("entry"), r.get("call"), r["root_function"])
        for r in records
        if r.get("type") == "recompile" and not parse.is_resume(r["function"])
    }
    known = [e.get("path", "") for e in entries.values() if e.get("path")]
    follow = follow_ups(records)
    found: dict[tuple[str, str, int, str], Finding] = {}
    seen: dict[tuple[str, str, int, str], set[Any]] = {}  # calls (records in run mode) counted per key
    for i, r in enumerate(records):
        if r.get("type") != "recompile":
            continue
        entry = r.get("entry", "")
        for failure in r.get("failures") or []:
            if (parse.is_resume(r["function"]) and not failure.get("source_line")
                    and (entry, r.get("call"), r["root_function"]) in roots_in_call):
                continue
            path, line = _recompile_location(r, failure, known, root)
            key = (entry, path, line, guard_subject(failure["guard"]))
            prev = found.get(key)
            if prev is None:
                found[key] = _recompile_finding(r, failure, entry, path, line, records, root)
            elif i not in follow and (r.get("call") or ("record", i)) not in seen[key]:
                if r.get("call"):
                    prev.extra["calls"].append(r.get("call"))
                prev.extra["count"] += 1
            seen.setdefault(key, set()).add(r.get("call") or ("record", i))  # run mode: no call numbers
    return [_with_count(f) for f in found.values()]


def _with_count(f: Finding) -> Finding:
    """Say how often a repeated recompile happened."""
    n = f.extra["count"]
    return f if n == 1 else f.replace(message=f"{f.message} (and {n - 1} more recompile(s) on this guard)")


def _function_name(rec: dict[str, Any], failure: dict[str, Any], root: Path) -> str:
    """The user's function: the guard's placed user frame, else Dynamo's (resume-mapped) name."""
    prim = primary_frame(user_stack(failure.get("stack") or [], root), root)
    if prim is not None and not parse.is_pseudo_path(prim["path"]):
        return parse.original_function(prim["function"])
    return rec.get("root_function") or parse.original_function(rec.get("function", ""))


def _guard_words(rec: dict[str, Any], failure: dict[str, Any], records: list[dict[str, Any]],
                 root: Path) -> tuple[str, str, str]:
    """(class, the guard in words, a note on where its value came from) for a guard failure."""
    guard = failure.get("guard", "")
    value = break_value(rec, records, root) if guards.stack_slots(guard) else BreakValue()
    cls = guards.classify(guard, failure.get("hint", ""), value.gb_id)
    return cls, guards.describe(guard, value.values), value.note


def _recompile_finding(rec: dict[str, Any], failure: dict[str, Any], entry: str, path: str, line: int,
                       records: list[dict[str, Any]], root: Path) -> Finding:
    cls, words, note = _guard_words(rec, failure, records, root)
    hints = tuple(h for h in (failure.get("hint", ""),) if h)
    return Finding(
        rule_id=RULE_RECOMPILE,
        kind=Kind.RECOMPILE,
        path=path,
        line=line,
        message=(f"Recompiled `{_function_name(rec, failure, root)}`"
                 + (f" (call {rec['call']})" if rec.get("call") else "")
                 + f": guard failed: {words}" + (f"; {note}" if note else "")),
        severity=Severity.WARNING,
        status=Status.OBSERVED,
        fix=guards.FIXES.get(cls, ""),
        explanation=guards.EXPLANATIONS.get(cls, ""),
        hints=hints,
        stack=to_frames(user_stack(failure.get("stack") or [], root)),
        entry=entry,
        extra={"guard_class": cls, "guard": failure["guard"], "compile_id": failure.get("compile_id", ""),
               "function": rec["function"], "calls": [rec.get("call")], "count": 1, "raw": rec.get("raw", ""),
               "source": "dynamo"},
    )


def limit_findings(records: list[dict[str, Any]], root: Path) -> list[Finding]:
    """Recompile-limit hits (`torch._dynamo hit config.recompile_limit`): the function runs eagerly."""
    out = []
    for r in records:
        if r.get("type") != "recompile_limit":
            continue
        last = (r.get("failures") or [{}])[0]
        rec = {**r, "root_function": parse.original_function(r.get("function", ""))}
        path, line = _recompile_location(rec, last, [], root) if last else (r.get("path", ""), 0)
        line = line or parse.def_line(r.get("path", ""), int(r.get("line") or 0))
        guard = last.get("guard", "")
        cls, words, note = _guard_words(rec, last, records, root) if guard else ("other", "", "")
        out.append(
            Finding(
                rule_id=RULE_RECOMPILE_LIMIT,
                kind=Kind.ERROR,
                path=path,
                line=line,
                message=(f"`{_function_name(rec, last, root)}` hit the recompile limit ({r.get('limit')}) and "
                         f"now runs eagerly; last guard failure: {words}" + (f"; {note}" if note else "")),
                severity=Severity.ERROR,
                status=Status.OBSERVED,
                fix=guards.FIXES.get(cls, ""),
                explanation=guards.EXPLANATIONS.get(cls, ""),
                entry=r.get("entry", ""),
                extra={"guard_class": cls, "guard": guard, "raw": r.get("raw", ""), "source": "dynamo"},
            )
        )
    return out


def error_finding(rec: dict[str, Any], root: Path, target: Path, entries: dict[str, dict[str, Any]]) -> Finding:
    """BRK902/BRK903 from a child `error` record (user code raised or exited)."""
    frames = rec.get("traceback") or []
    prim = primary_frame(frames, root)
    entry = rec.get("entry", "")
    if prim is None:
        e = entries.get(entry, {})
        prim = {"path": e.get("path") or str(target), "line": e.get("line") or 1, "column": None}
    what = {"import": "importing the target", "examples": "producing the examples", "call": "a call"}
    where = what.get(rec.get("phase", ""), rec.get("phase", ""))
    exited = rec.get("exc_type") == "SystemExit"
    verb = f"exited (sys.exit({rec.get('message')}))" if exited else f"raised {rec.get('exc_type')}: {rec.get('message')}"
    subject = f"entry {entry}" if entry else str(target.name)
    message = f"User code {verb} during {where} ({subject}); the dynamic pass skipped the rest of it"
    if rec.get("phase") == "program":
        message = f"The program {verb}" + (" (exit status 1)" if not exited else "")
    return Finding(
        rule_id=rec.get("rule") or RULE_USER_RAISED,
        kind=Kind.ERROR,
        path=prim["path"],
        line=int(prim["line"] or 1),
        column=prim.get("column") or 1,
        message=message,
        severity=Severity.ERROR,
        status=Status.OBSERVED,
        stack=to_frames(frames),
        entry=entry,
        extra={"phase": rec.get("phase"), "exc_type": rec.get("exc_type"), "traceback": rec.get("text", ""),
               "source": "breakscan"},
    )


def crash_finding(outcome: ChildOutcome, records: list[dict[str, Any]], root: Path, target: Path,
                  timeout: float) -> Finding | None:
    """BRK903 when the child did not finish: timeout, signal, non-zero exit, or missing result.

    None when it finished, or when the user's Ctrl-C/SIGTERM stopped it (the report says so).
    """
    if outcome.interrupted or any(r.get("type") == "done" for r in records):
        return None
    started = [r for r in records if r.get("type") == "entry_start"]
    ended = {r.get("entry") for r in records if r.get("type") == "entry_end"}
    running = next((r for r in reversed(started) if r.get("entry") not in ended), None)
    rc = outcome.returncode
    if outcome.timed_out:
        why = f"timed out after {timeout:g} s"
    elif any(r.get("type") == "interrupted" for r in records):  # breakscan forwarded none (see above)
        why = "was interrupted by a SIGINT sent to it directly, not through breakscan,"
    elif rc is not None and rc < 0:
        try:
            name = signal.Signals(-rc).name
        except ValueError:
            name = f"signal {-rc}"
        why = f"was killed by {name}"
    elif rc:
        why = f"exited with status {rc}"
    else:
        why = "ended without writing its result"
    subject = f"in entry {running['entry']}" if running else ("before any entry ran" if not started else "between entries")
    frames = fault_frames(outcome.stderr_tail)
    prim = primary_frame(frames, root)
    if prim is None:
        prim = {"path": (running or {}).get("path") or str(target), "line": (running or {}).get("line") or 1}
    return Finding(
        rule_id=RULE_PASS_FAILED,
        kind=Kind.ERROR,
        path=prim["path"],
        line=int(prim["line"] or 1),
        message=f"The dynamic pass {why} {subject}; findings of earlier entries are kept",
        severity=Severity.ERROR,
        status=Status.OBSERVED,
        stack=to_frames(frames),
        entry=(running or {}).get("entry", ""),
        extra={"returncode": rc, "timed_out": outcome.timed_out, "seconds": round(outcome.seconds, 3),
               "stderr_tail": outcome.stderr_tail[-4000:], "source": "breakscan"},
    )


def fault_frames(stderr: str) -> list[dict[str, Any]]:
    """User frames from the last faulthandler dump in `stderr` (it lists innermost first)."""
    blocks = re.split(r"(?m)^(?:Fatal Python error|Current thread|Thread 0x)", stderr)
    for block in reversed(blocks):
        frames = [
            {"path": m.group("path"), "line": int(m.group("line")), "function": m.group("func"), "column": None}
            for m in (FAULT_FRAME_RE.match(ln) for ln in block.splitlines())
            if m and not is_library(m.group("path")) and not m.group("path").startswith("<")
        ]
        if frames:
            return list(reversed(frames))
    return []


def largest_split(order: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The break that splits the largest graph of the first call, from the oracle's event order.

    `order` interleaves `{"graph": i, "ops": n}` (a graph handed to the backend) and
    `{"break": {...}}` (a break or fallback) as they happened. Dynamo logs a break, then
    compiles the graph that ends at it: a graph right after a break ends there; a graph with
    no break right before it (it ends at a return) was started by the last break before it.
    None when the first call had no break or no graph.
    """
    graphs = [(pos, ev["ops"]) for pos, ev in enumerate(order) if "graph" in ev]
    if not graphs or not any("break" in ev for ev in order):
        return None
    pos = max(graphs, key=lambda g: g[1])[0]  # the first of the largest
    before = [ev["break"] for ev in order[:pos] if "break" in ev]
    if before:
        return before[-1]
    return next(ev["break"] for ev in order[pos:] if "break" in ev)


def _placed(path: str, line: int, mine: list[Finding]) -> tuple[str, int]:
    """Where the break Dynamo locates at path:line was placed (a finding whose stack holds it), or itself."""
    f = _break_finding_at(path, line, mine)
    return (f.path, f.line) if f is not None else (path, line)


def _break_finding_at(path: str, line: int, mine: list[Finding]) -> Finding | None:
    """The break or fallback finding placed at path:line or holding it in its stack, if any."""
    for f in mine:
        if f.kind in (Kind.GRAPH_BREAK, Kind.FRAME_FALLBACK) and (
                (f.path, f.line) == (path, line) or any((fr.path, fr.line) == (path, line) for fr in f.stack)):
            return f
    return None


def call_order(order: list[dict[str, Any]], mine: list[Finding]) -> list[dict[str, Any]]:
    """The graphs of `order` (the oracle's events, see `largest_split`) with each break placed
    after the graph it ends: `{"graph": i, "ops": n}` and `{"break": {path, line, gb_id, gb_type,
    fallback}}`, in the order the code runs (the first call's).

    Dynamo logs a break, then compiles the graph that ends at it; breaks with no graph after
    them (an empty prefix) stay where they are. A break is given the location of the entry's
    finding that holds it (`mine`), so a report can link the two.
    """
    out: list[dict[str, Any]] = []
    pending: list[dict[str, Any]] = []
    for ev in order:
        if "break" in ev:
            pending.append(_placed_break(ev["break"], mine))
        elif "graph" in ev:
            out += pending[:-1]
            out.append({"graph": int(ev["graph"]), "ops": int(ev.get("ops") or 0)})
            out += pending[-1:]
            pending = []
    return out + pending


def _placed_break(brk: dict[str, Any], mine: list[Finding]) -> dict[str, Any]:
    path, line = brk.get("path") or "", int(brk.get("line") or 0)
    f = _break_finding_at(path, line, mine) if path else None
    return {"break": {"path": f.path if f else path, "line": f.line if f else line, "gb_id": brk.get("gb_id") or "",
                      "gb_type": brk.get("gb_type") or "", "fallback": bool(brk.get("fallback"))}}


def program_order(records: list[dict[str, Any]], entry: str) -> list[dict[str, Any]]:
    """Run mode's event order for `entry` (the shape of the oracle's `order`): each frame the
    program compiled (`compiled` records) as a graph, with its breaks and fallbacks."""
    order: list[dict[str, Any]] = []
    for r in records:
        if r.get("entry") != entry:
            continue
        if r.get("type") == "compiled":
            order.append({"graph": len([e for e in order if "graph" in e]), "ops": int(r.get("graph_op_count") or 0)})
        elif r.get("type") == "break" and not r.get("escaped"):
            order.append({"break": {k: r.get(k) for k in ("gb_type", "gb_id", "path", "line")}})
        elif r.get("type") == "fallback" and not _is_limit_fallback(r):
            ev = _fallback_event(r)
            order.append({"break": {k: ev.get(k) for k in ("gb_type", "gb_id", "path", "line", "fallback")}})
    return order


FULLGRAPH_AT_RE = re.compile(r" at (?P<path>.+):(?P<line>\d+)$")


def _placed_fullgraph(text: str, mine: list[Finding]) -> str:
    """The fullgraph error with its ` at FILE:LINE` (Dynamo's innermost frame: maybe `<string>` or
    torch) moved to where the same break's finding was placed."""
    m = FULLGRAPH_AT_RE.search(text or "")
    if not m:
        return text
    path, line = _placed(m.group("path"), int(m.group("line")), mine)
    return f"{text[: m.start()]} at {path}:{line}"


def _describe_split(brk: dict[str, Any], mine: list[Finding], root: Path | None) -> str:
    """`path:line gb_type (GBnnnn)`, at the finding's (project) location when one matches."""
    gb_id = brk.get("gb_id") or ""
    what = f"{brk.get('gb_type') or 'graph break'}" + (f" ({gb_id})" if gb_id else "")
    if not brk.get("path"):  # no location known: say what, not `:0`
        return what
    path, line = _placed(brk["path"], int(brk.get("line") or 0), mine)
    where = relative_label(Path(path), root) if root else Path(path).name
    return f"{where}:{line} {what}"


def entry_reports(records: list[dict[str, Any]], findings: list[Finding],
                  root: Path | None = None) -> list[EntryReport]:
    """One EntryReport per entry started; unfinished ones carry the error text."""
    reports: dict[str, EntryReport] = {}
    for r in records:
        t = r.get("type")
        if t == "entry_start":
            reports[r["entry"]] = EntryReport(name=r["entry"], path=r.get("path", ""), line=int(r.get("line") or 0),
                                              error="did not finish", call_path=r.get("call_path") or "",
                                              call_line=int(r.get("call_line") or 0))
        elif t == "entry_end" and r.get("entry") in reports:
            rep = reports[r["entry"]]
            rep.calls, rep.graphs = int(r.get("calls", 0)), int(r.get("graphs", 0))
            rep.ops_per_graph = list(r.get("ops_per_graph") or [])
            rep.fullgraph_ok, rep.fullgraph_error = r.get("fullgraph_ok"), r.get("fullgraph_error", "")
            rep.seconds = float(r.get("seconds", 0.0))
            rep.error = r.get("explain_error", "") and f"explain failed: {r['explain_error']}"
            rep.extra_order = list(r.get("order") or [])  # type: ignore[attr-defined]
    for rep in reports.values():
        mine = [f for f in findings if f.entry == rep.name]
        split = largest_split(getattr(rep, "extra_order", []))
        rep.timeline = call_order(getattr(rep, "extra_order", []), mine)
        if split is not None:
            rep.largest_split_by = _describe_split(split, mine, root)
        if hasattr(rep, "extra_order"):
            del rep.extra_order
        rep.fullgraph_error = _placed_fullgraph(rep.fullgraph_error, mine)
        rep.graph_breaks = sum(f.kind in (Kind.GRAPH_BREAK, Kind.FRAME_FALLBACK) for f in mine)
        rep.recompiles = count_recompiles(records, rep.name)
        errors = [f for f in mine if f.rule_id in (RULE_USER_RAISED, RULE_PASS_FAILED)]
        if errors:
            rep.error = errors[0].message
    return list(reports.values())


def traced_lines(records: list[dict[str, Any]]) -> dict[str, set[int]]:
    """Lines Dynamo traced (artifact `trace_source`) minus every line of a break's stack.

    The result means "traced without breaking": the merge marks static predictions there
    `refuted`.
    """
    lines: dict[str, set[int]] = {}
    for r in records:
        if r.get("type") == "entry_end":
            for path, nums in (r.get("traced") or {}).items():
                lines.setdefault(path, set()).update(int(n) for n in nums)
    for r in records:
        ev = r if r.get("type") == "break" else _fallback_event(r) if r.get("type") == "fallback" else None
        if ev is None:
            continue
        for fr in [*(ev.get("stack") or []), {"path": ev.get("path", ""), "line": ev.get("line", 0)}]:
            lines.get(fr["path"], set()).discard(int(fr["line"] or 0))
    return {p: s for p, s in lines.items() if s}


def build_result(records: list[dict[str, Any]], outcome: ChildOutcome, *, target: Path, project_root: Path,
                 timeout: float) -> DynamicResult:
    """Turn the child's records and exit outcome into a DynamicResult."""
    start = next((r for r in records if r.get("type") == "start"), {})
    entries = {r["entry"]: r for r in records if r.get("type") == "entry_start"}
    findings = break_findings(records, project_root)
    findings += recompile_findings(records, entries, project_root)
    findings += limit_findings(records, project_root)
    findings += [error_finding(r, project_root, target, entries) for r in records if r.get("type") == "error"
                 and not (outcome.interrupted and r.get("exc_type") == "KeyboardInterrupt")]
    crash = crash_finding(outcome, records, project_root, target, timeout)
    if crash is not None:
        findings.append(crash)
    entries_seen = entry_reports(records, findings, project_root)
    if outcome.interrupted:
        for rep in entries_seen:
            rep.error = "interrupted" if rep.error == "did not finish" else rep.error
    return DynamicResult(
        findings=findings,
        entries=entries_seen,
        traced_lines=traced_lines(records),
        device=start.get("device", ""),
        torch_version=start.get("torch_version", ""),
    )
