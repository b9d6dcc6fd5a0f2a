"""Ctrl-C while breakscan runs: it stops promptly, reports what it collected, exits 130.

Each test starts the real CLI in a session of its own and sends SIGINT to that session's
process group, as a terminal does on Ctrl-C (every process of the foreground group gets it).
The user code writes a marker file (holding its pid) when it has reached the point where the
test interrupts it: the test polls for it, never sleeps blindly. Dynamic tests run real
Dynamo (~10 s each: the torch import and Dynamo's set-up).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import jsonschema
import pytest

from breakscan.catalog import load_catalog
from breakscan.findings import Finding, Interruption, Kind, Report, Status
from breakscan.report import github, sarif, terminal
from breakscan.report import json as json_report
from tests.conftest import ROOT, default_sigint, requires_torch

PROMPT_S = 8.0  # from Ctrl-C to breakscan's exit, with room for a loaded 2-core host


STDERR: dict[int, Path] = {}  # each started CLI's stderr file, by pid


def start(args: list[str], cwd: Path) -> tuple[subprocess.Popen[bytes], Path, Path]:
    """The CLI in a new session (its pid is its process group), output to files in `cwd`."""
    out, err = cwd / "stdout.txt", cwd / "stderr.txt"
    # PYTHONFAULTHANDLER: a hung run dumps every thread's stack on SIGABRT (exit_within)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "COLUMNS": "200", "PYTHONFAULTHANDLER": "1"}
    with open(out, "wb") as o, open(err, "wb") as e:
        proc = subprocess.Popen([sys.executable, "-m", "breakscan", *args], cwd=cwd, env=env, stdout=o,
                                stderr=e, stdin=subprocess.DEVNULL, start_new_session=True,
                                preexec_fn=default_sigint)
    STDERR[proc.pid] = err
    return proc, out, err


def wait_for(path: Path, proc: subprocess.Popen[bytes], timeout: float = 240.0) -> str:
    """The marker's text once the user code has written it (fails if breakscan ends first)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if path.exists() and path.read_text().strip():
            return path.read_text().strip()
        assert proc.poll() is None, f"breakscan ended (status {proc.returncode}) before the marker"
        time.sleep(0.05)
    raise AssertionError(f"no marker {path.name} after {timeout} s")


def ctrl_c(proc: subprocess.Popen[bytes]) -> float:
    """SIGINT to the CLI's process group, as a terminal's Ctrl-C; returns the time it was sent."""
    os.killpg(proc.pid, signal.SIGINT)
    return time.monotonic()


def exit_within(proc: subprocess.Popen[bytes], since: float, limit: float = PROMPT_S) -> int:
    try:
        code = proc.wait(timeout=limit)
    except subprocess.TimeoutExpired:
        os.kill(proc.pid, signal.SIGABRT)  # faulthandler writes where it hangs to its stderr
        time.sleep(2.0)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        stack = STDERR[proc.pid].read_text(errors="replace")[-6000:]
        raise AssertionError(f"breakscan still running {limit} s after Ctrl-C; where it was:\n{stack}")
    assert time.monotonic() - since < limit
    return code


def group_alive(pgid: int) -> list[str]:
    """Live (non-zombie) processes of process group `pgid`, from /proc."""
    alive = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2:].split()  # after "pid (comm) ": state ppid pgrp ...
        if int(fields[2]) == pgid and fields[0] != "Z":
            alive.append(text[: text.rindex(")") + 1])
    return alive


def gone(pgid: int, timeout: float = 5.0) -> list[str]:
    """`group_alive(pgid)` once it is empty, or what is still there after `timeout`."""
    end = time.monotonic() + timeout
    while (left := group_alive(pgid)) and time.monotonic() < end:
        time.sleep(0.05)
    return left


def words(path: Path) -> str:
    """The file's text with every run of whitespace one space (the terminal report wraps lines)."""
    return " ".join(path.read_text().split())


def write(path: Path, source: str) -> Path:
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


EXAMPLES = """\
    import os
    import time

    import torch


    def scale(x):
        y = x * 2
        print("scaling")
        return y + 1


    def wait_long(x):
        with open("started.txt", "w") as marker:
            marker.write(str(os.getpid()))
        time.sleep(120)
        return x - 1


    def after(x):
        with open("after.txt", "w") as marker:
            marker.write("ran")
        return x


    def breakscan_examples():
        yield scale, (torch.randn(4),)
        yield wait_long, (torch.randn(4),)
        yield after, (torch.randn(4),)
"""


@pytest.mark.dynamic
@requires_torch
def test_ctrl_c_in_the_dynamic_pass_reports_the_breaks_found_so_far_and_exits_130(tmp_path: Path) -> None:
    write(tmp_path / "model.py", EXAMPLES)
    proc, out, err = start(["model.py", "--no-cache", "--root", str(tmp_path)], tmp_path)
    child = int(wait_for(tmp_path / "started.txt", proc))
    sent = ctrl_c(proc)
    assert exit_within(proc, sent) == 130
    text = words(out)
    assert "model.py:9:5 BRK201" in text and "[confirmed]" in text  # the first example's break, from Dynamo
    assert "Interrupted by SIGINT during the dynamic pass: 0 of 1 target file(s) finished" in text
    assert not (tmp_path / "after.txt").exists()  # the examples after the interrupted one never ran
    assert "Traceback" not in err.read_text()
    assert gone(child) == []  # the child ran in its own process group: nothing of it is left


@pytest.mark.dynamic
@requires_torch
def test_ctrl_c_swallowed_by_an_example_still_stops_the_pass_and_sarif_says_interrupted(tmp_path: Path) -> None:
    swallowing = EXAMPLES.replace(
        "        time.sleep(120)\n",
        "        try:\n            time.sleep(120)\n        except KeyboardInterrupt:\n            pass\n")
    write(tmp_path / "model.py", swallowing)
    sarif = tmp_path / "report.sarif"
    proc, out, err = start(["model.py", "--no-cache", "--root", str(tmp_path), "--format", "sarif", "-o",
                            str(sarif)], tmp_path)
    child = int(wait_for(tmp_path / "started.txt", proc))
    sent = ctrl_c(proc)
    assert exit_within(proc, sent) == 130
    assert not (tmp_path / "after.txt").exists()  # the probe stops at the next example all the same
    [run] = json.loads(sarif.read_text())["runs"]
    [invocation] = run["invocations"]
    assert invocation["executionSuccessful"] is False and invocation["exitCode"] == 130
    notes = [n["message"]["text"] for n in invocation["toolExecutionNotifications"]]
    assert any(n.startswith("Interrupted by SIGINT during the dynamic pass") for n in notes)
    assert {(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in run["results"]} >= {
        ("BRK201", 9)}
    assert "Interrupted by SIGINT" in err.read_text()  # the report went to a file: stderr says so too
    assert gone(child) == []


PROGRAM = """\
    import os
    import subprocess
    import sys
    import time

    import torch


    @torch.compile(backend="eager")
    def step(x):
        print("in step")
        return x * 2


    step(torch.randn(3))
    # A helper process of the program's own that ignores Ctrl-C (a data loader worker, say).
    helper = subprocess.Popen([sys.executable, "-c",
                               "import signal, time; signal.signal(signal.SIGINT, signal.SIG_IGN); time.sleep(120)"])
    with open("started.txt", "w") as marker:
        marker.write(str(os.getpid()))
    try:
        time.sleep(120)
    except KeyboardInterrupt:
        print("caught", flush=True)
"""


@pytest.mark.dynamic
@requires_torch
def test_ctrl_c_under_breakscan_run_reaches_the_programs_handler_and_the_report_follows(tmp_path: Path) -> None:
    write(tmp_path / "prog.py", PROGRAM)
    proc, out, err = start(["run", "--root", str(tmp_path), "prog.py"], tmp_path)
    child = int(wait_for(tmp_path / "started.txt", proc))
    sent = ctrl_c(proc)
    # Exit 130 although the program handled the KeyboardInterrupt and exited 0: the run was cut short.
    assert exit_within(proc, sent) == 130
    text = words(out)
    assert text.count("caught") == 1  # delivered once: by breakscan, not also by the terminal
    assert "prog.py:11:5 BRK201" in text and "[confirmed]" in text
    assert "Interrupted by SIGINT while the program ran" in text
    assert "BRK902" not in text and "KeyboardInterrupt" not in text  # the interrupt is not a finding
    assert "prog.py exited with status 0" in err.read_text()
    assert gone(child) == []  # the helper ignored SIGINT: it went with the program's group


IGNORING = """\
    import os
    import signal
    import time

    import torch


    @torch.compile(backend="eager")
    def step(x):
        print("in step")
        return x * 2


    step(torch.randn(3))
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with open("started.txt", "w") as marker:
        marker.write(str(os.getpid()))
    time.sleep(120)
"""


@pytest.mark.dynamic
@requires_torch
def test_a_second_ctrl_c_kills_a_program_that_ignores_the_first(tmp_path: Path) -> None:
    write(tmp_path / "prog.py", IGNORING)
    json_out = tmp_path / "report.json"
    proc, out, err = start(["run", "--root", str(tmp_path), "--format", "json", "-o", str(json_out), "prog.py"],
                           tmp_path)
    child = int(wait_for(tmp_path / "started.txt", proc))
    ctrl_c(proc)
    time.sleep(1.0)  # a program that ignores Ctrl-C is waited for, as `python prog.py` would be
    assert proc.poll() is None and group_alive(child)
    sent = ctrl_c(proc)
    assert exit_within(proc, sent) == 130
    report = json.loads(json_out.read_text())
    assert report["interrupted"]["signal"] == "SIGINT" and report["interrupted"]["exit_code"] == 130
    assert ("BRK201", 10, "confirmed") in {(f["rule_id"], f["line"], f["status"]) for f in report["findings"]}
    assert "BRK903" not in {f["rule_id"] for f in report["findings"]}  # killed by us: not a crash finding
    assert "prog.py was killed by SIGKILL" in err.read_text()
    assert gone(child) == []


def test_ctrl_c_in_the_static_pass_stops_the_worker_pool_at_once(tmp_path: Path) -> None:
    body = "\n".join(f"        x = torch.relu(x) * {i}\n        if x.sum() > {i}:\n            x = x - 1"
                     for i in range(150))
    for n in range(240):
        (tmp_path / f"m{n}.py").write_text(
            f"import torch\n\n\nclass M{n}(torch.nn.Module):\n    def forward(self, x):\n{body}\n        return x\n")
    proc, out, err = start([".", "--no-dynamic", "--no-cache", "--jobs", "2"], tmp_path)
    end = time.monotonic() + 60
    while len(group_alive(proc.pid)) < 3:  # the CLI and its two workers: the pool is running
        assert proc.poll() is None and time.monotonic() < end, "the static pass ended before its pool started"
        time.sleep(0.02)
    sent = ctrl_c(proc)
    # The whole scan takes minutes (381 s wall, 176 s CPU at load 5, measured); 20 s leaves room for a
    # loaded machine (2.5 s alone; over 10 s once, with two accuracy benches on the same 2 cores) and
    # still fails if the pool finishes its files before exiting.
    assert exit_within(proc, sent, limit=20.0) == 130
    assert gone(proc.pid) == []
    assert "Traceback" not in err.read_text()


def test_a_ctrl_c_landing_in_code_run_by_exec_still_exits_130(tmp_path: Path) -> None:
    """CPython 3.11 ends a process by SIGINT (status -2, not 130) once a KeyboardInterrupt went
    through code run by `exec`, even when the program handled it: that is where a Ctrl-C lands
    when a dataclass is being created during an import (libcst's node classes, imported by the
    CLI between the static pass's two phases: 4 of 30 Ctrl-Cs aimed there, measured)."""
    script = textwrap.dedent("""\
        import typer
        from breakscan import cli

        app = typer.Typer()

        @app.command()
        def scan():
            exec("raise KeyboardInterrupt")

        cli.app = app
        cli.main()
        """)
    (tmp_path / "interrupted_cli.py").write_text(script)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # As `python -m breakscan` runs: `-c` and script files exit through another path, unaffected.
    done = subprocess.run([sys.executable, "-m", "interrupted_cli"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60, preexec_fn=default_sigint)
    assert done.returncode == 130, done.stderr


def test_ctrl_c_while_workers_send_their_results_does_not_hang(tmp_path: Path) -> None:
    """Workers killed in the middle of sending a result once left the pool's manager thread
    reading the rest of that message forever, and breakscan waiting for it (1 in 50 Ctrl-Cs in
    the indexing phase, measured). Here the workers do nothing but send large results, so a
    Ctrl-C almost always lands in one; the pool runs in a child with a deadline."""
    script = textwrap.dedent("""\
        import os, signal, threading, time
        from breakscan.static.engine import _map

        def big(i):
            return bytes(8_000_000)

        threading.Timer(0.4, os.kill, (os.getpid(), signal.SIGINT)).start()
        start = time.monotonic()
        try:
            _map(big, list(range(400)), jobs=2)
        except KeyboardInterrupt:
            print(f"stopped {time.monotonic() - start:.2f}")
        """)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, preexec_fn=default_sigint)
    try:
        stdout, stderr = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the child and its pool's workers
        proc.communicate()
        raise AssertionError("the pool did not stop within 60 s of the Ctrl-C") from None
    assert stdout.startswith("stopped"), (stdout, stderr)
    assert "Traceback" not in stderr and "Exception" not in stderr, stderr


def test_an_interrupted_report_says_so_in_every_format(tmp_path: Path) -> None:
    model = tmp_path / "model.py"
    model.write_text("def f(x):\n    print(x)\n", encoding="utf-8")
    note = Interruption(signal="SIGINT", exit_code=130, message="Interrupted by SIGINT during the dynamic pass.")
    brk = Finding(rule_id="BRK201", kind=Kind.GRAPH_BREAK, path=str(model), line=2, message="print",
                  status=Status.CONFIRMED)
    report = Report(root=tmp_path, findings=[brk], dynamic_ran=True, interrupted=note)
    catalog = load_catalog()
    assert json.loads(json_report.render(report, catalog))["interrupted"] == {
        "signal": "SIGINT", "exit_code": 130, "message": note.message}
    doc = json.loads(sarif.render(report, catalog))
    schema = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    jsonschema.Draft4Validator(schema).validate(doc)
    [invocation] = doc["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False and invocation["exitCode"] == 130
    assert invocation["toolExecutionNotifications"][-1]["message"]["text"] == note.message
    assert github.render(report, catalog).splitlines()[-1] == (
        "::error title=breakscan interrupted::Interrupted by SIGINT during the dynamic pass.")
    assert note.message in " ".join(terminal.render(report, catalog).split())


@pytest.mark.dynamic
@requires_torch
def test_a_sigint_sent_to_the_child_directly_is_that_targets_error_and_the_pass_goes_on(tmp_path: Path) -> None:
    write(tmp_path / "model.py", """\
        import os
        import signal

        import torch


        def scale(x):
            print("scaling")
            return x * 2


        def interrupt_myself(x):
            os.kill(os.getpid(), signal.SIGINT)
            return x


        def breakscan_examples():
            yield scale, (torch.randn(4),)
            yield interrupt_myself, (torch.randn(4),)
    """)
    write(tmp_path / "other.py", """\
        import torch


        def shift(x):
            print("shifting")
            return x + 1


        def breakscan_examples():
            yield shift, (torch.randn(4),)
    """)
    report_path = tmp_path / "report.json"
    proc, out, err = start([".", "--no-cache", "--root", str(tmp_path), "--format", "json", "-o",
                            str(report_path)], tmp_path)
    assert proc.wait(timeout=400) == 1  # breakscan itself was not interrupted: exit by findings
    report = json.loads(report_path.read_text())
    assert report["interrupted"] is None
    found = {(f["path"], f["rule_id"], f["line"]) for f in report["findings"]}
    assert {("model.py", "BRK201", 8), ("other.py", "BRK201", 5)} <= found  # before it, and the next target
    [error] = [f for f in report["findings"] if f["rule_id"] == "BRK903"]
    assert "interrupted by a SIGINT sent to it directly" in error["message"]
    assert error["entry"] == "model.py:interrupt_myself"


def test_an_interrupted_report_gets_no_rewrites(tmp_path: Path) -> None:
    """After a Ctrl-C the CLI reports at once: the fixable findings' rewrites (which resolve libcst
    positions file by file) are not worked out; the same findings uninterrupted get theirs."""
    from breakscan import cli
    from breakscan.static.engine import scan_files

    model = tmp_path / "model.py"
    model.write_text('import torch\n\n\n@torch.compile\ndef scale(x):\n    print("scaling")\n    return x * 2\n')
    catalog = load_catalog()
    found = scan_files([model], list(catalog.values())).findings
    assert [f.rule_id for f in found] == ["BRK201"]
    note = Interruption(signal="SIGINT", exit_code=130, message="Interrupted by SIGINT during the dynamic pass.")
    plain = Report(root=tmp_path, findings=list(found))
    cut = Report(root=tmp_path, findings=list(found), interrupted=note)
    for report in (plain, cut):
        cli._attach_fixes(report, catalog, [], False, cli.Format.sarif)
    assert plain.findings[0].rewrite is not None
    assert cut.findings[0].rewrite is None
