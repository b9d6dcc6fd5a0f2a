"""Static-pass speed on the installed transformers source, with a fresh cache and a polluted one.

Measured in one run, each command in its own process (CPU seconds = user + sys of that process
tree, from os.wait4; wall seconds besides, which a shared machine makes noisy):

- libcst parse only with the same number of workers (the floor);
- with a **fresh** cache (it holds only what this scenario scanned) and with a **polluted** one
  (30,000 rows of other files first, as a cache that has served many projects holds): the whole
  tree cold (its files not in the cache) and warm (nothing changed), a sample (every 10th file)
  cold and warm, one small file warm (`fixtures/gated_mlp.py`, already in the cache) and one
  200-line file cold (new content each round);
- ruff (--no-cache, if installed) and TorchFix on every 20th file scaled x20 (if installed).

breakscan's own modules are byte-compiled first (`compileall`), as installing a wheel does: an
editable install run with PYTHONDONTWRITEBYTECODE=1 would otherwise compile them on every run
(about 0.1 s of a one-file run). Each result records the host's 1-minute load average when the
command ended (the table prints their range): on a shared host, wall times follow it.

The polluted cache is synthesized through breakscan's own Cache: real phase A entries (of tree
files) and real findings (of the fixtures), stored under the paths of 30,000 other existing files
(the stdlib's and site-packages' files, then files made in a temporary directory), with their
real sizes and mtimes, so the per-run prune keeps them.

Usage: python bench/static_speed.py [--rounds 1] [--jobs 2] [--tree PATH] [--pollute 30000]
       [--sample-only] [--skip-torchfix] [--torchfix PATH]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

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
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=ROOT)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss": usage.ru_maxrss / 1024,
            "status": os.waitstatus_to_exitcode(status), "load": round(os.getloadavg()[0], 2)}


def model_200_lines() -> str:
    """A 200-line model file: the fixtures' modules one after the other (each an nn.Module with
    graph breaks), cut at a module boundary at or after 200 lines."""
    out: list[str] = []
    for path in sorted((ROOT / "fixtures").glob("*.py")):
        out.extend(path.read_text().splitlines())
        if len(out) >= 200:
            break
    return "\n".join(out[:200]) + "\n"


def forget(cache_dir: Path, prefix: str) -> None:
    """Delete the cache rows of the files under `prefix` (the next scan of them is cold)."""
    from breakscan.static.cache import Cache

    path = Cache(cache_dir).path
    if not path.exists():
        return
    db = sqlite3.connect(path, timeout=60)
    with db:
        db.execute("DELETE FROM indexes WHERE substr(path, 1, ?) = ?", (len(prefix), prefix))
        db.execute("DELETE FROM checks WHERE substr(path, 1, ?) = ?", (len(prefix), prefix))
    db.close()


def pollution_paths(n: int, exclude: Path, scratch: Path) -> list[Path]:
    """`n` existing files outside `exclude`: the stdlib's and site-packages' files, then empty
    files made under `scratch`."""
    import sysconfig

    roots = {Path(sysconfig.get_paths()[k]) for k in ("stdlib", "purelib", "platlib")}
    found: list[Path] = []
    for root in sorted(roots):
        for path in root.rglob("*"):
            if len(found) >= n:
                return found
            if path.is_file() and exclude not in path.parents:
                found.append(path)
    scratch.mkdir(parents=True, exist_ok=True)
    for i in range(n - len(found)):
        path = scratch / f"d{i // 1000}" / f"m{i}.py"
        path.parent.mkdir(exist_ok=True)
        path.touch()
        found.append(path)
    return found


def pollute(cache_dir: Path, tree_files: list[str], n: int, scratch: Path, tree: Path) -> dict:
    """Store `n` synthesized rows (see the module docstring) in the cache at `cache_dir`."""
    from breakscan.catalog import load_catalog
    from breakscan.static.cache import Cache
    from breakscan.static.engine import FileIndex, index_file, scan_files

    entries = [index_file(Path(f)) for f in tree_files[::max(1, len(tree_files) // 200)]]
    entries = [e for e in entries if e.info is not None]
    fixtures = sorted((ROOT / "fixtures").glob("*.py"))
    found = scan_files(fixtures, list(load_catalog().values())).findings
    findings = [[f for f in found if f.path == str(p)] for p in fixtures]
    cache = Cache(cache_dir)
    for i, path in enumerate(pollution_paths(n, tree, scratch)):
        real = entries[i % len(entries)]
        cache.put_index(FileIndex(path, real.digest, info=real.info))
        if i % 3 == 0:
            cache.put_findings(str(path), f"pollution-{i}", findings[i % len(findings)])
    cache.save()
    stats = cache.stats()
    cache.close()
    return stats


def scenario(name: str, cache_dir: Path, args, files: list[str], sample_list: Path, tmp: Path,
             results: dict) -> None:
    """One round of every command that uses the cache at `cache_dir`."""
    py = sys.executable
    env = {**os.environ, "PYTHONPATH": str(ROOT), "BREAKSCAN_CACHE_DIR": str(cache_dir),
           "BREAKSCAN_CACHE_MAX_MB": "4096"}  # the polluted cache must not be evicted mid-bench
    # --root: the tree may sit in a venv inside this checkout, which .gitignore and the default
    # excludes (`.venv`) would otherwise skip when the tree is given as a directory.
    base = [py, "-m", "breakscan", "--no-dynamic", "--exit-zero", "--jobs", str(args.jobs),
            "--root", str(args.tree.parent)]
    out = ["--format", "json", "--output", str(tmp / "out.json")]

    def record(label: str, result: dict) -> None:
        results.setdefault(f"{label} [{name}]", []).append(result)
        print(f"  {label} [{name}]: {result}", file=sys.stderr, flush=True)

    if not args.sample_only:
        forget(cache_dir, str(args.tree))
        record("tree cold", run([*base, *out, str(args.tree)], env))
        record("tree warm", run([*base, *out, str(args.tree)], env))
    sample = sample_list.read_text().split("\n")
    forget(cache_dir, str(args.tree))
    record("sample cold", run([*base, *out, *sample], env))
    record("sample warm", run([*base, *out, *sample], env))
    one = str(ROOT / "fixtures" / "gated_mlp.py")
    run([*base, one], env)  # in the cache from here on
    for _ in range(3):
        record("one file warm", run([*base, one], env))
    model = tmp / "model_200.py"
    for i in range(3):
        model.write_text(f"# round {time.time_ns()} {i}\n" + model_200_lines())
        record("200-line file cold", run([*base, str(model)], env))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--tree", type=Path, default=None)
    parser.add_argument("--pollute", type=int, default=30_000, help="rows of other files in the polluted cache")
    parser.add_argument("--sample-only", action="store_true", help="skip the whole tree and the floor")
    parser.add_argument("--skip-torchfix", action="store_true")
    parser.add_argument("--torchfix", default=None,
                        help="torchfix executable (install it in its own venv: it pins an old libcst)")
    parser.add_argument("--pollute-into", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.tree is None:  # found, not imported: the bench's own RSS would pass on to its children
        import importlib.util

        args.tree = Path(importlib.util.find_spec("transformers").origin).parent
    files = sorted(str(p) for p in args.tree.rglob("*.py"))
    if args.pollute_into:
        pollute(args.pollute_into, files, args.pollute, args.pollute_into.parent / "scratch", args.tree)
        return 0
    lines = sum(Path(f).read_bytes().count(b"\n") for f in files)
    sample = files[::10]
    sample_lines = sum(Path(f).read_bytes().count(b"\n") for f in sample)
    tmp = Path(tempfile.mkdtemp(prefix="breakscan-bench-"))
    listing = tmp / "files.txt"
    listing.write_text("\n".join(files))
    sample_list = tmp / "sample.txt"
    sample_list.write_text("\n".join(sample))
    py = sys.executable
    subprocess.run([py, "-m", "compileall", "-q", "-f", str(ROOT / "breakscan")], check=True, stdout=subprocess.DEVNULL)
    fresh, polluted = tmp / "fresh", tmp / "polluted"
    started = time.perf_counter()
    # In a child: a parent grown by 30,000 rows would pass its peak RSS on to every command it forks.
    subprocess.run([py, __file__, "--pollute-into", str(polluted), "--pollute", str(args.pollute),
                    "--tree", str(args.tree)], check=True, env={**os.environ, "BREAKSCAN_CACHE_MAX_MB": "4096"})
    print(f"  polluted cache: {args.pollute} rows in {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
    results: dict[str, list[dict]] = {}
    others = {}
    if not args.sample_only:
        others["libcst parse (floor)"] = lambda: run([py, "-c", PARSE_FLOOR, str(listing), str(args.jobs)])
    ruff = shutil.which("ruff") or (str(Path(py).with_name("ruff")) if Path(py).with_name("ruff").exists() else None)
    if ruff and not args.sample_only:
        others["ruff --no-cache"] = lambda: run([ruff, "check", "--no-cache", "--exit-zero", "--quiet",
                                                 "--select", "ALL", str(args.tree)])
    torchfix = args.torchfix or shutil.which("torchfix")
    if torchfix and not args.skip_torchfix and not args.sample_only:
        others["torchfix (every 20th file) x20"] = lambda: _scaled(run([torchfix, *files[::20]]), 20)
    for _ in range(args.rounds):
        for name, fn in others.items():
            results.setdefault(name, []).append(fn())
            print(f"  {name}: {results[name][-1]}", file=sys.stderr, flush=True)
        shutil.rmtree(fresh, ignore_errors=True)
        scenario("fresh", fresh, args, files, sample_list, tmp, results)
        scenario("polluted", polluted, args, files, sample_list, tmp, results)
    from breakscan.static.cache import Cache

    sizes = {}
    for name, directory in (("fresh", fresh), ("polluted", polluted)):
        cache = Cache(directory)
        sizes[name] = cache.stats()
        cache.close()
    report(args, files, lines, sample, sample_lines, results, sizes)
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


def report(args, files, lines, sample, sample_lines, results, sizes) -> None:
    """Print the table (best CPU of the rounds; for one-file commands min and median wall)."""
    print(f"tree: {args.tree}  files: {len(files)}  lines: {lines}  sample: {len(sample)} files, "
          f"{sample_lines} lines  jobs: {args.jobs}  rounds: {args.rounds}  polluted with {args.pollute} rows")
    loads = [x["load"] for r in results.values() for x in r if "load" in x]
    if loads:
        print(f"host load average (1 min) while measuring: {min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} CPUs")
    print(f"{'command':38} {'wall s':>8} {'cpu s':>8} {'wall med':>9} {'files/s':>9} {'peak MiB':>9} {'load':>6}")
    best = {name: min(r, key=lambda x: x["cpu"]) for name, r in results.items()}
    for name, r in best.items():
        n_files = len(sample) if name.startswith("sample") else 1 if "file" in name else len(files)
        med = statistics.median(x["wall"] for x in results[name])
        print(f"{name:38} {r['wall']:8.2f} {r['cpu']:8.2f} {med:9.2f} {n_files / r['wall']:9.0f} {r['rss']:9.0f} "
              f"{r.get('load', 0):6.1f}")
    for name, stat in sizes.items():
        print(f"cache [{name}]: {stat['indexes']} index rows, {stat['checks']} check rows, "
              f"{stat['bytes'] / 2**20:.0f} MiB")
    for kind in ("fresh", "polluted"):
        for what in ("tree", "sample"):
            cold, warm = best.get(f"{what} cold [{kind}]"), best.get(f"{what} warm [{kind}]")
            if cold and warm:
                print(f"{what} warm / cold (CPU s) [{kind}]: {warm['cpu'] / cold['cpu']:.3f}  (target <= 0.10)")
        for what in ("one file warm", "200-line file cold"):
            r = best.get(f"{what} [{kind}]")
            if r:
                walls = [x["wall"] for x in results[f"{what} [{kind}]"]]
                print(f"{what} [{kind}]: wall {min(walls):.2f}-{max(walls):.2f} s, CPU {r['cpu']:.2f} s "
                      f"(target <= 0.5 s wall)")
    floor, cold = best.get("libcst parse (floor)"), best.get("tree cold [fresh]")
    if floor and cold:
        print(f"cold / floor (CPU s): {cold['cpu'] / floor['cpu']:.2f}   (target <= 1.5)")
        print(f"peak RSS cold:        {cold['rss']:.0f} MiB (target <= 1024)")
    if cold and "ruff --no-cache" in best:
        print(f"breakscan cold / ruff (CPU s): {cold['cpu'] / best['ruff --no-cache']['cpu']:.1f}")
    key = "torchfix (every 20th file) x20"
    if cold and key in best:
        print(f"torchfix (scaled) / breakscan cold (CPU s): {best[key]['cpu'] / cold['cpu']:.1f}   (target >= 10)")


def _scaled(result: dict, factor: int) -> dict:
    return {**result, "wall": result["wall"] * factor, "cpu": result["cpu"] * factor}


if __name__ == "__main__":
    sys.exit(main())
