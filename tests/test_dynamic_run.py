"""`breakscan run SCRIPT|-m MODULE`: a real training script under the capture (real Dynamo).

The CLI runs in a subprocess, as users run it: the program's output must pass through, the
report follow it, and the program's exit code be reported. Each run costs ~10 s (torch import,
Dynamo set-up, the program itself), so each test asserts several things about one run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, requires_torch

pytestmark = [pytest.mark.dynamic, pytest.mark.versions, requires_torch]

SAMPLES = ROOT / "tests" / "run_samples"
TRAIN = SAMPLES / "train.py"


def line_of(text: str) -> int:
    return next(i for i, line in enumerate(TRAIN.read_text().splitlines(), 1) if text in line)


def breakscan(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "breakscan", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=400)


def test_run_script_reports_breaks_recompiles_and_exit_code(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    proc = breakscan("run", "--backend", "eager", "--format", "json", "-o", str(out), "--root", str(ROOT),
                     str(TRAIN), "--steps", "3", "--exit", "3")
    # The program's own output passes through untouched; its arguments reached it.
    assert proc.stdout.splitlines()[:2] == ["forward torch.Size([4, 16])", "step 0 loss 2.3982"]
    assert "step 2 loss" in proc.stdout and "training done" in proc.stderr
    assert "train.py exited with status 3" in proc.stderr
    assert proc.returncode == 1  # error findings (the non-zero exit) at the default --fail-on
    report = json.loads(out.read_text())
    got = {(f["rule_id"], f["line"], f["status"]) for f in report["findings"]}
    assert ("BRK102", line_of("value = loss.item()"), "confirmed") in got  # the compiled loss step
    assert ("BRK201", line_of('print("forward", h.shape)'), "confirmed") in got  # the compiled model
    recompiles = [f for f in report["findings"] if f["rule_id"] == "BRK510"]
    assert {f["line"] for f in recompiles} == {line_of("def forward(self, x):"), line_of("def loss_step(pred, target):")}
    assert all("expected 4, actual 6" in f["message"] for f in recompiles)
    [exit_finding] = [f for f in report["findings"] if f["rule_id"] == "BRK903"]
    assert exit_finding["line"] == line_of("sys.exit(args.exit)") and exit_finding["extra"]["exit_code"] == 3
    [entry] = report["entries"]
    assert entry["name"] == "run:tests/run_samples/train.py" and entry["graphs"] >= 4


def test_run_module_that_raises_passes_traceback_through_and_reports_brk902() -> None:
    proc = breakscan("run", "--backend", "eager", "--color", "never", "-m", "train", "--raise", "--steps", "1",
                     cwd=SAMPLES)
    # The traceback is the program's, as `python -m train` prints it (no breakscan/runpy frames).
    assert "RuntimeError: failed after training" in proc.stderr
    assert "breakscan/dynamic/probe.py" not in proc.stderr and "runpy" not in proc.stderr
    assert "-m train exited with status 1" in proc.stderr
    # The report comes after the program's output on stdout.
    assert proc.stdout.index("step 0 loss") < proc.stdout.index("BRK902")
    assert "The program raised RuntimeError: failed after training" in proc.stdout
    assert "BRK102 [confirmed]" in proc.stdout and "The program exited with status 1." in proc.stdout
    assert proc.returncode == 1


def test_run_clean_exit_with_fail_on_error_exits_zero(tmp_path: Path) -> None:
    proc = breakscan("run", "--backend", "eager", "--fail-on", "error", "--format", "json", str(TRAIN),
                     "--steps", "1")
    assert proc.stdout.startswith("forward torch.Size([4, 16])\nstep 0 loss")
    report = json.loads(proc.stdout[proc.stdout.index("\n{") + 1:])
    assert not [f for f in report["findings"] if f["rule_id"].startswith("BRK9")]
    assert proc.returncode == 0 and "exited with status 0" in proc.stderr


def test_run_needs_a_script_or_module() -> None:
    proc = breakscan("run")
    assert proc.returncode == 2 and "SCRIPT or -m MODULE" in proc.stderr
