"""Recall and precision of the static pass on small user-style programs, against Dynamo.

Each program in `bench/user_scripts/<half>/` is a script written the way users write them
(a compiled function or `torch.compile(Module())`, helpers, a call at the bottom). It is copied
alone into a fresh directory and run with `breakscan run --backend eager -f json`, which runs the
static pass over it and the program under Dynamo; the statuses of the graph breaks and frame
fallbacks placed in the program's own file are counted:

- confirmed: predicted and observed on the same line (a hit);
- observed: Dynamo only (a miss);
- refuted: predicted, but Dynamo traced the line without breaking (a false alarm);
- predicted: the line never ran (not counted).

recall = confirmed / (confirmed + observed), precision = confirmed / (confirmed + refuted).

`dev` holds the programs the rules were checked on; `heldout` holds programs written before the
mechanisms of the same session were frozen and not read since: report its totals only
(`--detail` prints per-program rows, for dev).

Usage: python bench/user_scripts.py [--half dev|heldout|both] [--detail] [--jobs N] [--glob PATTERN]
Runtime: about 10 s per program on 2 CPU cores (torch import and compile in each child).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent / "user_scripts"
ROOT = HERE.parent.parent
COUNTED = ("graph-break", "frame-fallback")


def run_program(path: Path, timeout: float = 300.0) -> dict[str, list[str]]:
    """Run one program under `breakscan run`; return {status: ["RULE@line", ...]} for the breaks
    and fallbacks in its own file. Raises RuntimeError when breakscan writes no report."""
    with tempfile.TemporaryDirectory(prefix="breakscan-user-script-") as tmp:
        work = Path(tmp)
        shutil.copy(path, work / path.name)
        env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "BREAKSCAN_CACHE_DIR": str(work / "cache")}
        out = work / "report.json"
        proc = subprocess.run([sys.executable, "-m", "breakscan", "run", "--backend", "eager", "--show-refuted",
                               "--exit-zero", "-f", "json", "-o", str(out), "--root", str(work), path.name],
                              cwd=work, env=env, capture_output=True, text=True, timeout=timeout)
        if not out.exists():
            raise RuntimeError(f"{path.name}: no report (exit {proc.returncode}): {proc.stderr[-500:]}")
        report = json.loads(out.read_text())
    found: dict[str, list[str]] = {}
    for f in report["findings"]:
        if f["kind"] in COUNTED and Path(f["path"]).name == path.name and not f.get("library"):
            found.setdefault(f["status"], []).append(f"{f['rule_id']}@{f['line']}")
    return found


def measure(half: str, detail: bool, jobs: int, pattern: str = "*.py") -> dict[str, int]:
    """Run every program of `half` whose file name matches `pattern` (a glob); print per-program
    rows when `detail`; return the totals."""
    programs = sorted((HERE / half).glob(pattern))
    totals = {"confirmed": 0, "observed": 0, "refuted": 0, "predicted": 0}
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for path, found in zip(programs, pool.map(run_program, programs)):
            for status in totals:
                totals[status] += len(found.get(status, []))
            if detail:
                row = "  ".join(f"{s}: {', '.join(v)}" for s, v in sorted(found.items()))
                print(f"  {path.name:40s} {row}")
    c, o, r = totals["confirmed"], totals["observed"], totals["refuted"]
    recall = f"{c}/{c + o} = {100 * c / (c + o):.1f}%" if c + o else "-"
    precision = f"{c}/{c + r} = {100 * c / (c + r):.1f}%" if c + r else "-"
    print(f"{half}: {len(programs)} programs; confirmed {c}, missed {o}, refuted {r}, not run {totals['predicted']}; "
          f"recall {recall}, precision {precision}")
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half", choices=("dev", "heldout", "both"), default="dev")
    parser.add_argument("--detail", action="store_true", help="per-program rows (dev only)")
    parser.add_argument("--jobs", type=int, default=1, help="programs run at once")
    parser.add_argument("--glob", default="*.py", help="only the programs whose file name matches (e.g. 's13_*')")
    args = parser.parse_args()
    halves = ("dev", "heldout") if args.half == "both" else (args.half,)
    import torch

    print(f"torch {torch.__version__}, Python {sys.version.split()[0]}")
    for half in halves:
        measure(half, args.detail and half == "dev", args.jobs, args.glob)


if __name__ == "__main__":
    main()
