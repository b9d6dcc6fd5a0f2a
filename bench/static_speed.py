"""Static-pass speed on the installed transformers source, against libcst's parse floor and peers.

Measured in one run, alternating, each command in its own process (CPU seconds = user + sys of
that process tree, from os.wait4): libcst parse only with the same number of workers (the
floor), breakscan cold (empty cache), breakscan warm (cache full, nothing changed), ruff
(--no-cache, if installed), TorchFix on every 20th file scaled ×20 (if installed), and one
small file. Prints files/s, lines/s, peak RSS and the ratios the targets are stated in.

Usage: python bench/static_speed.py [--rounds 1] [--jobs 2] [--tree PATH] [--torchfix PATH]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PARSE_FLOOR = r'''
import sys
from concurrent.futures import ProcessPoolExecutor
import libcst as cst

def parse(path):
    try:
        cst.parse_module(open(path, "rb").read())
    except Exception:
        pass

files = [l.strip() for l in open(sys.argv[1]) if l.strip()]
with ProcessPoolExecutor(int(sys.argv[2])) as pool:
    list(pool.map(parse, files, chunksize=16))
'''


def run(cmd: list[str], env: dict | None = None) -> dict:
    """Run `cmd`; return wall seconds, CPU seconds (user+sys of the tree) and peak RSS (MiB)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss": usage.ru_maxrss / 1024,
            "status": os.waitstatus_to_exitcode(status)}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--tree", type=Path, default=None)
    parser.add_argument("--skip-torchfix", action="store_true")
    parser.add_argument("--torchfix", default=None,
                        help="torchfix executable (install it in its own venv: it pins an old libcst)")
    args = parser.parse_args()
    if args.tree is None:
        import transformers

        args.tree = Path(transformers.__file__).parent
    files = sorted(str(p) for p in args.tree.rglob("*.py"))
    lines = sum(Path(f).read_bytes().count(b"\n") for f in files)
    sample = files[::20]
    tmp = Path(tempfile.mkdtemp(prefix="breakscan-bench-"))
    listing = tmp / "files.txt"
    listing.write_text("\n".join(files))
    sample_list = tmp / "sample.txt"
    sample_list.write_text("\n".join(sample))
    py = sys.executable
    env = {**os.environ, "PYTHONPATH": str(ROOT), "BREAKSCAN_CACHE_DIR": str(tmp / "cache")}
    scan = [py, "-m", "breakscan", str(args.tree), "--no-dynamic", "--exit-zero", "--format", "json",
            "--output", str(tmp / "out.json"), "--jobs", str(args.jobs)]
    commands = {
        "libcst parse (floor)": lambda: run([py, "-c", PARSE_FLOOR, str(listing), str(args.jobs)]),
        "breakscan cold": lambda: (shutil.rmtree(tmp / "cache", ignore_errors=True), run(scan, env))[1],
        "breakscan warm": lambda: run(scan, env),
        "breakscan one file": lambda: run([py, "-m", "breakscan", str(ROOT / "fixtures" / "gated_mlp.py"),
                                           "--no-dynamic", "--exit-zero", "--no-cache"], env),
    }
    ruff = shutil.which("ruff") or (str(Path(py).with_name("ruff")) if Path(py).with_name("ruff").exists() else None)
    if ruff:
        commands["ruff --no-cache"] = lambda: run([ruff, "check", "--no-cache", "--exit-zero", "--quiet",
                                                   "--select", "ALL", str(args.tree)])
    torchfix = args.torchfix or shutil.which("torchfix")
    if torchfix and not args.skip_torchfix:
        commands["torchfix (every 20th file) x20"] = lambda: _scaled(run([torchfix, *sample]), 20)
    results: dict[str, list[dict]] = {name: [] for name in commands}
    for _ in range(args.rounds):
        for name, fn in commands.items():  # alternate: one of each per round
            results[name].append(fn())
            print(f"  {name}: {results[name][-1]}", file=sys.stderr, flush=True)
    best = {name: min(r, key=lambda x: x["cpu"]) for name, r in results.items()}
    print(f"tree: {args.tree}  files: {len(files)}  lines: {lines}  jobs: {args.jobs}  rounds: {args.rounds}")
    print(f"{'command':34} {'wall s':>8} {'cpu s':>8} {'files/s':>9} {'lines/s':>10} {'peak MiB':>9}")
    for name, r in best.items():
        n_files = 1 if "one file" in name else len(files)
        n_lines = 0 if "one file" in name else lines
        print(f"{name:34} {r['wall']:8.2f} {r['cpu']:8.2f} {n_files / r['wall']:9.0f} "
              f"{(n_lines / r['wall']) if n_lines else 0:10.0f} {r['rss']:9.0f}")
    floor, cold, warm = best["libcst parse (floor)"], best["breakscan cold"], best["breakscan warm"]
    print(f"cold / floor (CPU s): {cold['cpu'] / floor['cpu']:.2f}   (target <= 1.5)")
    print(f"warm / cold (CPU s):  {warm['cpu'] / cold['cpu']:.3f}  (target <= 0.10)")
    print(f"one file wall:        {best['breakscan one file']['wall']:.2f} s (target <= 0.5)")
    print(f"peak RSS cold:        {cold['rss']:.0f} MiB (target <= 1024)")
    if "ruff --no-cache" in best:
        print(f"breakscan cold / ruff (CPU s): {cold['cpu'] / best['ruff --no-cache']['cpu']:.1f}")
    key = "torchfix (every 20th file) x20"
    if key in best:
        print(f"torchfix (scaled) / breakscan cold (CPU s): {best[key]['cpu'] / cold['cpu']:.1f}   (target >= 10)")
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


def _scaled(result: dict, factor: int) -> dict:
    return {**result, "wall": result["wall"] * factor, "cpu": result["cpu"] * factor}


if __name__ == "__main__":
    sys.exit(main())
