"""`breakscan run --nproc-per-node 2`: real 2-rank jobs launched by torchrun, gloo on the CPU.

Each test runs the CLI in a subprocess as a user does, on the user's own script in a fresh
directory; each job costs ~15 s on an idle 2-core host (three torch imports: torchrun's and the
two ranks'), so there are few of them and each asserts several things about one job. Marked
`distributed` (select them with `-m distributed`); they run in the default test command.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from breakscan.catalog import load_catalog
from tests.conftest import ROOT, default_sigint, requires_torch

pytestmark = [pytest.mark.distributed, pytest.mark.dynamic, requires_torch]

RULES = load_catalog()
EXPECT = re.compile(r"\s*#\s*expect:\s*BRK\d{3}\s*$")


def breakscan(*args: str, cwd: Path, tmpdir: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "COLUMNS": "200"}
    if tmpdir is not None:
        env["TMPDIR"] = str(tmpdir)
    return subprocess.run([sys.executable, "-m", "breakscan", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


def example(tmp_path: Path, rule_id: str, which: str, name: str = "train.py") -> tuple[Path, int]:
    """The rule's breaking/fixed example written as the user's script; (its path, its `# expect:` line)."""
    rule = RULES[rule_id]
    code = (rule.breaking if which == "breaking" else rule.fixed)[0].code
    lines = code.splitlines()
    marked = next((i for i, line in enumerate(lines, 1) if EXPECT.search(line)), 0)
    path = tmp_path / name
    path.write_text("\n".join(EXPECT.sub("", line) for line in lines) + "\n", encoding="utf-8")
    return path, marked


def findings(report: dict, rule_id: str) -> list[dict]:
    return [f for f in report["findings"] if f["rule_id"] == rule_id]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (exited, not yet reaped by its parent) counts as gone
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return True


def test_rank_divergence_reported_once_per_finding_with_its_ranks(tmp_path: Path) -> None:
    """BRK520's own example (a print on rank 0 only) under 2 ranks: the print's break is one
    finding seen by rank 0, BRK520 says rank 1 did not break there; every rank's entry is kept."""
    script, line = example(tmp_path, "BRK520", "breaking")
    out = tmp_path / "report.json"
    proc = breakscan("run", "--nproc-per-node", "2", "--format", "json", "-o", str(out), str(script), cwd=tmp_path)
    assert proc.stdout.count("rank 0 step") == 1, proc.stdout + proc.stderr  # the program's output passes through
    assert "train.py exited with status 0" in proc.stderr
    report = json.loads(out.read_text())
    print_break = [f for f in report["findings"] if f["line"] == line and f["rule_id"] in ("BRK201", "GB0059")]
    assert len(print_break) == 1, report["findings"]  # identical findings of several ranks: once
    assert print_break[0]["ranks"] == [0] and print_break[0]["extra"]["ranks"] == [0]
    [div] = findings(report, "BRK520")
    assert (div["path"], div["line"], div["kind"], div["severity"]) == ("train.py", line, "graph-break", "warning")
    assert div["ranks"] == [0] and div["extra"]["missing_ranks"] == [1]
    assert "on rank 0 but not on rank 1" in div["message"] and "GB0059" in div["message"]
    assert "hang" in div["explanation"]
    names = sorted(e["name"] for e in report["entries"])
    assert names == ["run:train.py (rank 0)", "run:train.py (rank 1)"]
    graphs = {e["name"][-7:-1]: e["graphs"] for e in report["entries"]}
    assert graphs == {"rank 0": 2, "rank 1": 1}  # the break splits rank 0's graph only
    assert proc.returncode == 1  # warnings at the default --fail-on


def test_ddp_bucket_split_is_an_expected_note_on_every_rank(tmp_path: Path) -> None:
    """BRK521's example (DDP(torch.compile(model)), bucket_cap_mb=1) in SARIF: DDPOptimizer's
    split is a note with the bucket cap, `expected`, seen by both ranks, and no divergence."""
    script, line = example(tmp_path, "BRK521", "breaking")
    out = tmp_path / "report.sarif"
    proc = breakscan("run", "--nproc-per-node", "2", "--format", "sarif", "-o", str(out), str(script),
                     cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr  # a note does not fail at --fail-on warning
    results = json.loads(out.read_text())["runs"][0]["results"]
    [split] = [r for r in results if r["ruleId"] == "BRK521"]
    assert split["level"] == "note"
    assert split["locations"][0]["physicalLocation"]["region"]["startLine"] == line
    props = split["properties"]
    assert props["breakscan/ranks"] == [0, 1] and props["breakscan/expected"] is True
    assert "bucket cap 1048576 bytes" in split["message"]["text"] and "into 2 graphs" in split["message"]["text"]
    assert not [r for r in results if r["ruleId"] != "BRK521"], results  # no user break, no BRK520


def test_fixed_examples_show_no_divergence_and_no_split(tmp_path: Path) -> None:
    """The fixed examples of BRK520 (print outside the compiled function) and BRK521
    (optimize_ddp off) under 2 ranks: neither rule fires. The jobs leave nothing in the temporary
    directory (torchrun's logs went to breakscan's work directory, which is removed)."""
    temp = tmp_path / "temp"
    temp.mkdir()
    for rule_id in ("BRK520", "BRK521"):
        script, _ = example(tmp_path, rule_id, "fixed", name=f"{rule_id.lower()}_fixed.py")
        out = tmp_path / f"{rule_id}.json"
        proc = breakscan("run", "--nproc-per-node", "2", "--format", "json", "-o", str(out), str(script),
                         cwd=tmp_path, tmpdir=temp)
        report = json.loads(out.read_text())
        assert not findings(report, "BRK520") and not findings(report, "BRK521"), (rule_id, report["findings"])
        assert len(report["entries"]) == 2, proc.stderr
    assert [p.name for p in temp.iterdir() if p.name.startswith(("torchelastic_", "breakscan-"))] == []


FAILING = '''\
import sys

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dist.init_process_group("gloo")
    model = torch.compile(DDP(nn.Linear(8, 8)), backend="eager")
    model(torch.ones(2, 8)).sum().backward()
    if dist.get_rank() == 1:
        raise ValueError("bad shard on rank 1")
    dist.barrier()  # rank 0 waits here for a rank that is gone
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''


def test_failing_rank_is_an_error_and_wrapper_breaks_are_explained(tmp_path: Path) -> None:
    """torch.compile(DDP(model)), then rank 1 raises: its error is a finding of rank 1, rank 0
    (waiting in a barrier) ends too, and both ranks' breaks in DDP's forward are kept, once,
    explained as the wrapper's; the text report shows the ranks."""
    (tmp_path / "train.py").write_text(FAILING, encoding="utf-8")
    proc = breakscan("run", "--nproc-per-node", "2", "--timeout", "120", "--verbose", "train.py", cwd=tmp_path)
    assert proc.returncode == 1
    assert "ValueError: bad shard on rank 1" in proc.stderr  # the rank's traceback passes through
    assert "train.py exited with status 1" in proc.stderr
    text = proc.stdout
    assert re.search(r"train\.py:14:\d+ BRK902 \[ranks 1\] Rank 1: the program raised ValueError: bad shard", text), text
    assert re.search(r"BRK90[23] \[ranks 0\] Rank 0: ", text), text  # stopped by torchrun, or gloo raised
    wrapper = re.findall(r"(GB\d{4}) \[observed\] \[ranks 0,1\]", text)
    assert wrapper, text  # DDP's forward breaks on both ranks: one finding each
    assert len(wrapper) == len(set(wrapper))
    assert "compiled the DDP wrapper, `torch.compile(DDP(model))`" in text
    assert "BRK520" not in text  # both ranks broke the same way


HANG = '''\
import os
import sys
import time
from pathlib import Path

import torch
import torch.distributed as dist


@torch.compile(backend="eager")
def step(x):
    y = x + 1
    print("step")
    return y * 2


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    step(torch.ones(3))
    Path(sys.argv[1], f"rank{rank}.pid").write_text(str(os.getpid()))
    if sys.argv[2] == "hang" and rank == 0:
        dist.barrier()  # rank 1 never comes
    else:
        time.sleep(600)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''


def test_hanging_ranks_time_out_with_where_they_waited(tmp_path: Path) -> None:
    """Rank 0 waits in a barrier that rank 1 (asleep) never joins: the timeout kills every rank;
    each is a BRK903 `hung` finding placed where it waited; the break both saw is kept."""
    (tmp_path / "train.py").write_text(HANG, encoding="utf-8")
    out = tmp_path / "report.json"
    proc = breakscan("run", "--nproc-per-node", "2", "--timeout", "45", "-f", "json", "-o", str(out), "train.py",
                     str(tmp_path), "hang", cwd=tmp_path)
    report = json.loads(out.read_text())
    assert "killed on timeout" in proc.stderr
    hung = {f["extra"]["rank"]: f for f in findings(report, "BRK903")}
    assert sorted(hung) == [0, 1], report["findings"]
    for rank, f in hung.items():
        assert f["message"].startswith(f"Rank {rank}: hung") and f["ranks"] == [rank] and f["extra"]["hung"]
    assert hung[0]["line"] == HANG.splitlines().index("        dist.barrier()  # rank 1 never comes") + 1
    assert hung[1]["line"] == HANG.splitlines().index("        time.sleep(600)") + 1
    [brk] = [f for f in report["findings"] if f["rule_id"] in ("BRK201", "GB0059")]
    assert brk["ranks"] == [0, 1]
    for rank in (0, 1):
        assert not alive(int((tmp_path / f"rank{rank}.pid").read_text()))


def test_ctrl_c_stops_every_rank_and_keeps_the_findings(tmp_path: Path) -> None:
    """Ctrl-C (SIGINT to breakscan's process group, as a terminal sends it) once both ranks
    sleep: torchrun passes it on, every rank ends, the report keeps the break, exit 130."""
    (tmp_path / "train.py").write_text(HANG, encoding="utf-8")
    out = tmp_path / "report.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    with open(tmp_path / "stderr.txt", "wb") as err:
        proc = subprocess.Popen([sys.executable, "-m", "breakscan", "run", "--nproc-per-node", "2", "-f", "json",
                                 "-o", str(out), "train.py", str(tmp_path), "sleep"], cwd=tmp_path, env=env,
                                stdout=subprocess.DEVNULL, stderr=err, stdin=subprocess.DEVNULL,
                                start_new_session=True, preexec_fn=default_sigint)
    try:
        markers = [tmp_path / "rank0.pid", tmp_path / "rank1.pid"]
        end = time.monotonic() + 120
        while not all(m.exists() and m.read_text() for m in markers):
            assert proc.poll() is None and time.monotonic() < end, (tmp_path / "stderr.txt").read_text()
            time.sleep(0.1)
        pids = [int(m.read_text()) for m in markers]
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.wait(timeout=60) == 130
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert not any(alive(pid) for pid in pids)
    report = json.loads(out.read_text())
    assert report["interrupted"]["exit_code"] == 130
    [brk] = [f for f in report["findings"] if f["rule_id"] in ("BRK201", "GB0059")]
    assert brk["ranks"] == [0, 1]
    assert not [f for f in report["findings"] if f["rule_id"].startswith("BRK9")], report["findings"]


@pytest.mark.parametrize("finished, expected", [({0, 1}, [1]), ({0}, [])])
def test_only_ranks_that_finished_are_compared(finished: set[int], expected: list[int]) -> None:
    """A break seen on rank 0 is a divergence from rank 1 only if rank 1 finished (a rank that
    died before reaching the line is no evidence); expected splits never diverge. No job: the
    merge on findings as the ranks reported them."""
    from breakscan.dynamic.multirank import divergence_findings
    from breakscan.findings import Finding, Kind, Severity, Status

    brk = Finding(rule_id="GB0059", kind=Kind.GRAPH_BREAK, path="/p/train.py", line=3, message="print",
                  status=Status.OBSERVED, extra={"ranks": [0]})
    split = brk.replace(rule_id="BRK521", severity=Severity.NOTE, extra={"ranks": [0], "expected": True})
    out = divergence_findings([brk, split], finished, [0, 1])
    assert [f.extra["missing_ranks"] for f in out] == ([expected] if expected else [])
