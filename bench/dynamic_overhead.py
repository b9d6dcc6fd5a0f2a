"""What breakscan's dynamic pass costs over just compiling the same entries with `backend="eager"`.

    python bench/dynamic_overhead.py [--rounds 3] [TARGET.py ...]   (default: fixtures/real/*.py)

Two arms, each run in its own subprocess, alternating, several rounds:

- breakscan: the whole dynamic pass, child start included (`run_dynamic_many` over the targets
  in one child: what `breakscan PATHS` does on this machine);
- bare: one plain process that imports each target, compiles the same callables with
  `torch.compile(fn, backend="eager")`, runs the same examples in the same order with Dynamo's
  graph-break logging on (`torch._logging.set_logs(graph_breaks=True)`), and
  `torch._dynamo.reset()` between targets.

Prints the median wall time and peak RSS of each arm (RSS from `os.wait4`, which covers the
arm's process and the children it waited for) and the ratios breakscan / bare. Targets in
the issue: time <= 1.3x, memory <= 1.2x.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def bare(targets: list[str]) -> None:
    """The bare arm (runs in its own process)."""
    import importlib.util
    import inspect

    import torch

    torch._logging.set_logs(graph_breaks=True)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    for i, target in enumerate(targets):
        torch._dynamo.reset()
        sys.path.insert(0, str(Path(target).parent))
        spec = importlib.util.spec_from_file_location(f"_bench_target_{i}", target)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        gen = module.breakscan_examples
        items = gen(device=device) if "device" in inspect.signature(gen).parameters else gen()
        current, compiled = None, None
        for item in items:
            fn, args = item[0], tuple(item[1])
            kwargs = item[2] if len(item) > 2 else {}
            if fn is not current:
                torch._dynamo.reset()
                current, compiled = fn, torch.compile(fn, backend="eager")
            compiled(*args, **kwargs)


def breakscan(targets: list[str]) -> None:
    """The breakscan arm (runs in its own process): the whole dynamic pass."""
    sys.path.insert(0, str(ROOT))
    from breakscan.dynamic.runner import run_dynamic_many

    results = run_dynamic_many([(Path(t), None) for t in targets], project_root=ROOT)
    errors = [f for r in results for f in r.findings if f.rule_id.startswith("BRK9")]
    if errors:
        sys.exit(f"breakscan arm had errors: {[f.message for f in errors]}")


def measure(arm: str, targets: list[str]) -> tuple[float, int, float]:
    """(wall seconds, peak RSS in KiB, CPU seconds) of one run of `arm` in a fresh subprocess."""
    cmd = [sys.executable, __file__, "--arm", arm, *targets]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{arm} arm failed (status {status}); run it alone: {' '.join(cmd)}")
    return wall, usage.ru_maxrss, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--arm", choices=["bare", "breakscan"])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("targets", nargs="*")
    args = parser.parse_args()
    targets = [str(Path(t).resolve()) for t in args.targets] or sorted(str(p) for p in (ROOT / "fixtures" / "real").glob("*.py"))
    if args.arm:
        {"bare": bare, "breakscan": breakscan}[args.arm](targets)
        return
    print(f"{len(targets)} targets: {', '.join(Path(t).stem for t in targets)}")
    runs: dict[str, list[tuple[float, int, float]]] = {"bare": [], "breakscan": []}
    for r in range(args.rounds):
        for arm in (("bare", "breakscan") if r % 2 == 0 else ("breakscan", "bare")):
            wall, rss, cpu = measure(arm, targets)
            runs[arm].append((wall, rss, cpu))
            print(f"round {r + 1}: {arm:9s} {wall:6.1f} s wall  {cpu:6.1f} s CPU  peak RSS {rss / 1024:5.0f} MiB",
                  flush=True)
    med = {arm: (statistics.median(w for w, _, _ in v), max(m for _, m, _ in v), statistics.median(c for _, _, c in v))
           for arm, v in runs.items()}
    for arm, (wall, rss, cpu) in med.items():
        print(f"{arm:9s} median {wall:6.1f} s wall  {cpu:6.1f} s CPU  peak RSS {rss / 1024:5.0f} MiB")
    print(f"time ratio (medians) {med['breakscan'][0] / med['bare'][0]:.2f}x wall, "
          f"{med['breakscan'][2] / med['bare'][2]:.2f}x CPU   (target <= 1.3x)")
    print(f"peak RSS ratio       {med['breakscan'][1] / med['bare'][1]:.2f}x   (target <= 1.2x)")


if __name__ == "__main__":
    main()
