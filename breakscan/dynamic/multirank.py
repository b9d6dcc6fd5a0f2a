"""`breakscan run --nproc-per-node N`: a program under torch.distributed's own launcher.

The child is torchrun itself (`torch.distributed.run`'s argument parser and `run`, i.e.
`elastic_launch`), started by `launcher_main`; each rank's entry point is the probe's
bootstrap (`runner.PROBE_BOOTSTRAP`), so every rank gets the Dynamo capture and writes its
records to `RESULT.rank<RANK>` (RANK from torchrun's environment). The launcher writes a
summary (the ranks that failed and their exit codes, from torchrun's `ChildFailedError`).

The parent (`run_ranks`, importable without torch) turns each rank's records into findings
as a single-process run does, then merges them: identical findings of several ranks appear
once with `extra["ranks"]`; a graph break, frame fallback, recompile or recompile-limit hit
seen on some of the ranks that finished but not all gets a BRK520 (rank divergence) finding
as well. A rank that failed, hung (timeout) or was stopped by the launcher after another
rank failed is a BRK902/BRK903 error finding of its own; the other ranks' findings are kept.

torchrun starts each rank in its own session (`start_new_session`), so a signal to the
launcher's process group does not reach the ranks: on timeout and on a second Ctrl-C the
parent signals each rank's group too (their pids come from the ranks' `start` records).
"""

from __future__ import annotations

import json
import linecache
import os
import shutil
import signal
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any

from breakscan.dynamic import runner
from breakscan.findings import Finding, Kind, Severity, Status

if TYPE_CHECKING:
    from breakscan.interrupt import Interrupt

RULE_RANK_DIVERGENCE = "BRK520"
RULE_DDP_SPLIT = "BRK521"
DIVERGING_KINDS = (Kind.GRAPH_BREAK, Kind.FRAME_FALLBACK, Kind.RECOMPILE)
DDP_FILE = os.path.join("torch", "nn", "parallel", "distributed.py")

# The launcher child: import this module from the breakscan the parent runs (as the probe's
# bootstrap does), then run torchrun's own `run` with the given torchrun arguments.
LAUNCH_BOOTSTRAP = """\
import sys
sys.path.insert(0, sys.argv.pop(1))
import breakscan.dynamic.multirank as multirank
del sys.path[0]
sys.exit(multirank.launcher_main(sys.argv[1:]))
"""


def torchrun_args(nproc_per_node: int, nnodes: str | None = None, node_rank: int | None = None,
                  rdzv_endpoint: str | None = None, rdzv_id: str | None = None,
                  rdzv_backend: str | None = None) -> list[str]:
    """torchrun's options for a launch: `--standalone` (c10d rendezvous on a free local port,
    as torchrun picks it) when one node is asked for and no rendezvous endpoint is given."""
    args = ["--nproc-per-node", str(nproc_per_node), "--max-restarts", "0"]
    if nnodes:
        args += ["--nnodes", str(nnodes)]
    if node_rank is not None:
        args += ["--node-rank", str(node_rank)]
    if rdzv_endpoint:
        args += ["--rdzv-endpoint", rdzv_endpoint, "--rdzv-backend", rdzv_backend or "c10d"]
        if rdzv_id:
            args += ["--rdzv-id", rdzv_id]
    elif not nnodes or str(nnodes) in ("1", "1:1"):
        args.append("--standalone")
    return args


def launcher_main(argv: list[str]) -> int:
    """The launcher child: `SUMMARY.json TORCHRUN_ARGS...`; runs torchrun's `run` and writes
    `{"failures": {rank: {"exitcode", "signal"}}, "error": text}` to SUMMARY (exit 1 on failure)."""
    summary_path, args = argv[0], argv[1:]
    from torch.distributed.elastic.multiprocessing.errors import ChildFailedError
    from torch.distributed.run import parse_args, run

    summary: dict[str, Any] = {"failures": {}, "error": ""}
    code = 0
    try:
        run(parse_args(args))
    except ChildFailedError as exc:
        code = 1
        summary["failures"] = {
            str(rank): {"exitcode": f.exitcode, "signal": f.signal_name() if f.exitcode < 0 else "",
                        "local_rank": f.local_rank}
            for rank, f in exc.failures.items()
        }
    except BaseException as exc:  # noqa: BLE001 - rendezvous errors, a signal: the parent reports it
        code = 1
        summary["error"] = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        summary["traceback"] = traceback.format_exc()
    Path(summary_path).write_text(json.dumps(summary), encoding="utf-8")
    return code


def launcher_command(python: str, summary: Path, torchrun: list[str], request: Path, result: Path) -> list[str]:
    """`python -c LAUNCH_BOOTSTRAP PACKAGE_PARENT SUMMARY TORCHRUN_ARGS --log-dir DIR --no-python
    python -c PROBE_BOOTSTRAP PACKAGE_PARENT REQUEST RESULT`: torchrun runs the probe on every
    rank; DIR is beside SUMMARY, in the run's work directory."""
    rank_cmd = runner.probe_command(python, request, result)
    # torchrun's log directory in breakscan's work directory (removed after the run), not a new
    # `torchelastic_*` directory left in the system's temporary directory by every launch.
    logs = summary.parent / "torchelastic"
    return [python, "-c", LAUNCH_BOOTSTRAP, str(runner.PACKAGE_PARENT), str(summary), *torchrun,
            "--log-dir", str(logs), "--no-python", *rank_cmd]


def rank_files(result: Path) -> dict[int, Path]:
    """{rank: its result file} for the files the ranks wrote next to `result`."""
    out = {}
    for p in result.parent.glob(result.name + ".rank*"):
        suffix = p.name[len(result.name) + len(".rank"):]
        if suffix.isdigit():
            out[int(suffix)] = p
    return dict(sorted(out.items()))


def rank_pids(result: Path, request: Path) -> list[int]:
    """Pids (each one its session's and group's leader) of the ranks still running this request.

    From each rank's `start` record; on Linux a pid counts only while its command line still
    names `request` (a reused pid is never signalled)."""
    pids = []
    for path in rank_files(result).values():
        start = next((r for r in runner.read_records(path) if r.get("type") == "start"), None)
        pid = int(start.get("pid") or 0) if start else 0
        if pid <= 0:
            continue
        cmdline = Path(f"/proc/{pid}/cmdline")
        if Path("/proc/self").exists():
            try:
                if str(request).encode() not in cmdline.read_bytes():
                    continue
            except OSError:
                continue
        pids.append(pid)
    return pids


def run_ranks(
    *,
    script: str | None,
    module: str | None,
    argv: list[str],
    cwd: Path,
    project_root: Path,
    torchrun: list[str],
    device: str = "auto",
    timeout: float = 300.0,
    backend: str | None = None,
    python: str | None = None,
    stop: Interrupt | None = None,
    dynamo_config: dict[str, Any] | None = None,
) -> tuple[runner.DynamicResult, int | None]:
    """Run a program on several ranks with torchrun (`torchrun` holds its options, see
    `torchrun_args`) and return the merged findings and the program's exit code.

    Exit code: 0 when every rank exited 0; else the first failing rank's status (negative for
    a signal); None when the timeout killed the job. `timeout` (seconds) bounds the whole job:
    ranks still running then are hung (BRK903 each, with the stack each was in). `stop`: the
    first Ctrl-C/SIGTERM goes to torchrun, which passes it on to every rank; a second one
    kills the launcher and every rank. Never raises for what the program does; OSError only if
    the launcher cannot start.
    """
    project_root = Path(project_root).resolve()
    target = Path(script).resolve() if script else Path(runner.module_path(module or "", cwd) or cwd)
    label = (f"run:{runner.relative_label(target, project_root)}" if script else f"run:-m {module}")
    workdir = Path(tempfile.mkdtemp(prefix="breakscan-ranks-"))
    python = python or sys.executable
    try:
        req_path, res_path, summary_path = workdir / "request.json", workdir / "result.jsonl", workdir / "summary.json"
        request = {
            "mode": "run", "ranks": True, "script": str(target) if script else None, "module": module,
            "argv": list(argv), "label": label, "main_path": str(target), "device": device,
            "backend": backend, "project_root": str(project_root), "fault_file": str(workdir / "fault.txt"),
            "dynamo_config": runner._table(dynamo_config),
        }
        cmd = launcher_command(python, summary_path, torchrun, req_path, res_path)
        outcome = runner._run_child(request, workdir, python, timeout, Path(cwd), passthrough=True, stop=stop,
                                    command=cmd, groups=lambda: rank_pids(res_path, req_path))
        deadline = time.monotonic() + runner.KILL_GRACE_S  # a SIGTERMed rank dumps its stack first
        while rank_pids(res_path, req_path) and time.monotonic() < deadline:
            time.sleep(runner.POLL_S)
        for pid in rank_pids(res_path, req_path):  # torchrun gone first (killed): leave no rank behind
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            summary = json.loads(summary_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            summary = {}
        per_rank = {rank: (runner.read_records(path), _tail(workdir / f"fault.txt.rank{rank}"))
                    for rank, path in rank_files(res_path).items()}
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return merge_ranks(per_rank, summary, outcome, target=target, project_root=project_root, timeout=timeout,
                       label=label)


def _tail(path: Path, limit: int = 8000) -> str:
    try:
        return path.read_bytes()[-limit:].decode("utf-8", errors="replace")
    except OSError:
        return ""


def merge_ranks(per_rank: dict[int, tuple[list[dict[str, Any]], str]], summary: dict[str, Any],
                outcome: runner.ChildOutcome, *, target: Path, project_root: Path, timeout: float,
                label: str) -> tuple[runner.DynamicResult, int | None]:
    """One DynamicResult from every rank's records (`{rank: (records, fault-file tail)}`), the
    launcher's `summary` and its outcome; see the module docstring. Returns it and the exit code."""
    failures = {int(k): v for k, v in (summary.get("failures") or {}).items()}
    merged: dict[tuple, Finding] = {}
    ranks_of: dict[tuple, list[int]] = {}
    finished: set[int] = set()
    entries, traced = [], {}
    codes: dict[int, int | None] = {}
    result = runner.DynamicResult(interrupted=bool(outcome.interrupted))
    for rank, (records, fault) in sorted(per_rank.items()):
        done = next((r for r in records if r.get("type") == "done"), None)
        if done is not None:
            finished.add(rank)
            codes[rank] = int(done.get("exit_code", 0))
        elif rank in failures:
            codes[rank] = int(failures[rank].get("exitcode") or 1)
        rank_outcome = runner.ChildOutcome(
            returncode=codes.get(rank, -signal.SIGTERM if failures and not outcome.timed_out else outcome.returncode),
            timed_out=outcome.timed_out and done is None, seconds=outcome.seconds, stderr_tail=fault,
            interrupted=outcome.interrupted)
        res = runner.build_result(records, rank_outcome, target=target, project_root=project_root, timeout=timeout)
        res.entries = [runner._program_entry(e, records, res.findings) for e in res.entries]
        for e in res.entries:
            e.name = f"{e.name} (rank {rank})"
        entries += res.entries
        for path, lines in res.traced_lines.items():
            traced.setdefault(path, set()).update(lines)
        result.device = result.device or res.device
        result.torch_version = result.torch_version or res.torch_version
        findings = res.findings + ddp_split_findings(records, project_root, label)
        for f in findings:
            if f.rule_id in (runner.RULE_USER_RAISED, runner.RULE_PASS_FAILED):
                f = _rank_error(f, rank, failures, done is None, outcome, timeout)
            f = explain_wrapper(f, project_root)
            key = (f.rule_id, f.kind.value, f.path, f.line, f.column, f.message)
            if key not in merged:
                merged[key] = f
                ranks_of[key] = []
            ranks_of[key].append(rank)
    findings = []
    for key, f in merged.items():
        f.extra["ranks"] = sorted(set(ranks_of[key]))
        findings.append(f)
    findings += divergence_findings(findings, finished, sorted(per_rank))
    if not per_rank:  # the launcher failed before any rank started
        findings.append(_launcher_finding(summary, outcome, target, timeout))
    for rank in sorted(set(failures) - set(per_rank)):  # died before its capture wrote anything
        status = failures[rank].get("signal") or f"exit status {failures[rank].get('exitcode')}"
        findings.append(Finding(
            rule_id=runner.RULE_PASS_FAILED, kind=Kind.ERROR, path=str(target), line=1,
            message=f"Rank {rank}: failed before breakscan's capture started ({status})",
            severity=Severity.ERROR, status=Status.OBSERVED,
            extra={"rank": rank, "ranks": [rank], "returncode": failures[rank].get("exitcode"),
                   "source": "breakscan"}))
    result.findings, result.entries, result.traced_lines = findings, entries, traced
    return result, job_exit_code(codes, outcome, bool(per_rank))


def job_exit_code(codes: dict[int, int | None], outcome: runner.ChildOutcome, ranks_ran: bool) -> int | None:
    """The job's exit code: None on timeout; else the lowest rank's positive exit status (the
    rank that failed: torchrun then SIGTERMs the others), else the lowest rank's signal
    (negative), else 0; the launcher's own status when no rank ran."""
    if outcome.timed_out:
        return None
    if not ranks_ran:
        return outcome.returncode
    ordered = [c for _, c in sorted(codes.items()) if c]
    return next((c for c in ordered if c > 0), ordered[0] if ordered else 0)


def _rank_error(f: Finding, rank: int, failures: dict[int, dict[str, Any]], unfinished: bool,
                outcome: runner.ChildOutcome, timeout: float) -> Finding:
    """A rank's BRK902/BRK903 said of that rank: hung (timeout), stopped by torchrun after
    another rank failed, or failed itself."""
    message = f.message.replace("The dynamic pass ", "", 1) if f.rule_id == runner.RULE_PASS_FAILED else f.message
    message = message[0].lower() + message[1:] if message else message
    extra = {**f.extra, "rank": rank}
    if f.rule_id == runner.RULE_PASS_FAILED and unfinished:
        others = sorted(r for r, v in failures.items() if r != rank and int(v.get("exitcode") or 0) > 0)
        signalled = rank not in failures or int(failures[rank].get("exitcode") or 0) < 0
        if outcome.timed_out:
            message = (f"hung: still running when the {timeout:g} s timeout killed the job (a rank waiting in a "
                       "collective that another rank never joins, or a desync); where it waited is its stack")
            extra["hung"] = True
        elif signalled and others and not outcome.interrupted:
            message = (f"was stopped by the launcher (torchrun) after rank {others[0]} failed; its findings up "
                       "to then are kept")
            extra["stopped_by_launcher"] = True
    return f.replace(message=f"Rank {rank}: {message}", extra=extra)


def _launcher_finding(summary: dict[str, Any], outcome: runner.ChildOutcome, target: Path,
                      timeout: float) -> Finding:
    """BRK903 when no rank wrote anything: torchrun itself failed (bad options, rendezvous)."""
    if outcome.timed_out:
        why = f"timed out after {timeout:g} s before any rank started"
    elif outcome.interrupted:
        why = "was interrupted before any rank started"
    else:
        why = f"failed before any rank started: {summary.get('error') or f'exit status {outcome.returncode}'}"
    return Finding(rule_id=runner.RULE_PASS_FAILED, kind=Kind.ERROR, path=str(target), line=1,
                   message=f"The distributed launch (torchrun) {why}", severity=Severity.ERROR,
                   status=Status.OBSERVED,
                   extra={"traceback": summary.get("traceback", ""), "returncode": outcome.returncode,
                          "timed_out": outcome.timed_out, "source": "breakscan", "ranks": []})


def divergence_findings(findings: list[Finding], finished: set[int], ranks: list[int]) -> list[Finding]:
    """BRK520 for each break, fallback, recompile or recompile-limit hit seen on some ranks but
    not on others that finished (a rank that died early is no evidence of a divergence)."""
    out = []
    for f in findings:
        if f.kind not in DIVERGING_KINDS and f.rule_id != runner.RULE_RECOMPILE_LIMIT:
            continue
        seen = set(f.extra.get("ranks") or ())
        missing = sorted(finished - seen)
        if not seen or not missing or f.extra.get("expected"):
            continue
        what = {Kind.GRAPH_BREAK: "Graph break", Kind.FRAME_FALLBACK: "Frame fallback",
                Kind.RECOMPILE: "Recompile"}.get(f.kind, "Recompile-limit hit")
        message = (f"{what} on rank {_ranks(seen)} but not on rank {_ranks(missing)}: the ranks run different "
                   f"graphs ({f.rule_id}: {_first_line(f.message)})")
        out.append(Finding(
            rule_id=RULE_RANK_DIVERGENCE, kind=f.kind, path=f.path, line=f.line, column=f.column,
            end_line=f.end_line, end_column=f.end_column, message=message, severity=Severity.WARNING,
            status=Status.OBSERVED, gb_ids=f.gb_ids, stack=f.stack, entry=f.entry, code=f.code,
            explanation=("Collectives inside compiled code (DDP's gradient all-reduce hooks, FSDP's "
                         "all-gathers) must run in the same order on every rank; ranks that break, fall "
                         "back or recompile differently compile different graphs, which desyncs or hangs "
                         "them and makes their speed differ."),
            extra={"ranks": sorted(seen), "missing_ranks": missing, "diverging_rule": f.rule_id,
                   "rank_divergence": True, "source": "breakscan"},
        ))
    return out


def _first_column(path: str, line: int) -> int:
    """1-based column of the first non-blank character of `path`:`line` (1 if unreadable)."""
    text = linecache.getline(path, line)
    return len(text) - len(text.lstrip()) + 1 if text.strip() else 1


def _ranks(ranks: Any) -> str:
    return ", ".join(str(r) for r in sorted(ranks))


def _first_line(text: str) -> str:
    return text.splitlines()[0] if text else ""


WRAPPER_NOTE = (
    "This break is in DistributedDataParallel's own forward (torch/nn/parallel/distributed.py): the program "
    "compiled the DDP wrapper, `torch.compile(DDP(model))`. Dynamo deliberately does not trace DDP's "
    "pre/post-forward (it marks `_inside_ddp_forward` skipped): those run eagerly and the wrapped module's "
    "forward is compiled in a frame of its own, split at gradient buckets by DDP's optimizer (BRK521). The "
    "model's graphs are the same as with `DDP(torch.compile(model))` (measured on torch 2.13, gloo); compile "
    "the module inside the wrapper to have no breaks in DDP's code."
)


FSDP_DIR = os.path.join("torch", "distributed", "fsdp", "")
FSDP_NOTE = (
    "This break is at one of FSDP2's hooks (torch/distributed/fsdp/, `fully_shard`): FSDP2 wraps its "
    "pre/post-forward hooks in `torch._dynamo.disable` (\"skipping FSDP hooks\"), so they run eagerly "
    "and the graph breaks at each sharded module's call. Measured on torch 2.13 (CPU, gloo): neither "
    "`torch.compile` of the sharded model nor `layer.compile()` of each sharded layer compiled a graph "
    "with ops (TORCH_LOGS=graph_code shows none); the model ran eagerly."
)


def explain_wrapper(f: Finding, root: Path) -> Finding:
    """A break or fallback inside DDP's forward (a frame of torch/nn/parallel/distributed.py
    inward of the innermost project frame of its stack) says that the wrapper was compiled; one
    at an FSDP2 hook (torch/distributed/fsdp/) says that FSDP2 skips its hooks.

    DDP(torch.compile(model)) also has DDP's forward on the stack, but outward of the model's
    own code: a break there is the model's."""
    if f.kind not in (Kind.GRAPH_BREAK, Kind.FRAME_FALLBACK):
        return f
    frames = [fr.path for fr in f.stack] or [f.path]
    last_own = max((i for i, p in enumerate(frames) if runner.in_project(p, root)), default=-1)
    inward = frames[last_own + 1:]
    if any(p.endswith(DDP_FILE) for p in inward):
        note, wrapper = WRAPPER_NOTE, "DistributedDataParallel"
    elif any(FSDP_DIR in p for p in inward):
        note, wrapper = FSDP_NOTE, "fully_shard"
    else:
        return f
    return f.replace(explanation=f"{note} {f.explanation}".strip(), extra={**f.extra, "wrapper": wrapper})


def ddp_split_findings(records: list[dict[str, Any]], root: Path, entry: str) -> list[Finding]:
    """BRK521 (a note, `extra["expected"]`) for each graph DDP's optimizer split at its gradient
    buckets: Dynamo's `DDPOptimizer used bucket cap B and created N buckets` (INFO, logger
    `torch._dynamo.backends.distributed`) with N > 1; placed at the user's line whose call
    compiled the graph."""
    out = []
    compiled = {r.get("compile_id"): r for r in records if r.get("type") == "compiled"}
    for r in records:
        if r.get("type") != "ddp_split" or int(r.get("buckets") or 0) < 2:
            continue
        # The Python stack when DDPOptimizer logged: the program's own frames end at its call that
        # compiles the graph (lazy imports during the compile put `<frozen importlib>` frames below).
        frames = [fr for fr in r.get("stack") or [] if not runner.is_breakscan(fr["path"])]
        own = [i for i, fr in enumerate(frames) if runner.in_project(fr["path"], root)]
        frames = frames[own[0]: own[-1] + 1] if own else runner.user_stack(frames, root)
        prim = runner.primary_frame(frames, root) or {"path": str(root), "line": 1}
        comp = compiled.get(r.get("compile_id"), {})
        fn = comp.get("co_name") or "the compiled module"
        cap = int(r.get("bucket_cap") or 0)
        n = int(r["buckets"])
        out.append(Finding(
            rule_id=RULE_DDP_SPLIT, kind=Kind.GRAPH_BREAK, path=prim["path"], line=int(prim["line"] or 1),
            column=_first_column(prim["path"], int(prim["line"] or 1)),
            message=(f"Expected split: DDP's optimizer split the graph of `{fn}` into {n} graphs at its gradient "
                     f"buckets (bucket cap {cap} bytes = bucket_cap_mb {cap / 2**20:g}); not a graph break of "
                     "your code"),
            severity=Severity.NOTE, status=Status.OBSERVED, stack=runner.to_frames(frames), entry=entry,
            extra={"expected": True, "bucket_cap_bytes": cap, "buckets": n, "compile_id": r.get("compile_id", ""),
                   "function": fn, "source": "dynamo"},
        ))
    return out
