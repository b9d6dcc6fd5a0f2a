"""Robustness sweep and long fuzz of breakscan's static pass (issue 7).

    python bench/robustness.py                  # sweep: CPython's stdlib + this environment's site-packages
    python bench/robustness.py --paths DIR...   # sweep other trees
    python bench/robustness.py --fuzz 2000      # long fuzz (the strategies of tests/test_fuzz.py)
    python bench/robustness.py --big            # time a 10 MB module of code (not data)

The sweep runs the static pass (`scan_files`, every rule, no cache) over every `.py`/`.pyi` file
under the trees (vendored, test and generated files included: no excludes), in chunks of files
from the same directory tree (so cross-file regions are followed within a chunk), each chunk in
its own child process (`--workers` at a time), so that a segfault or hang is counted against the
chunk instead of ending the sweep. It prints files scanned, error findings by cause, internal
exceptions (BRK900 findings, exceptions escaping `scan_files`, dead children: the target is 0),
and the slowest files (phase A = read + `ast` index, phase B = libcst parse + rule checks).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


# child: scan one chunk ---------------------------------------------------------------------------
def scan_chunk(paths: list[Path]) -> dict:
    """Scan `paths` in this process with per-file timings; never raises."""
    import traceback

    from breakscan.catalog import load_catalog
    from breakscan.static import engine

    timings: dict[str, float] = {}
    real_index, real_check = engine.index_file, engine.check_file

    def index_file(path):
        start = time.perf_counter()
        try:
            return real_index(path)
        finally:
            timings[str(path)] = timings.get(str(path), 0.0) + time.perf_counter() - start

    def check_file(path, *args, **kwargs):
        start = time.perf_counter()
        try:
            return real_check(path, *args, **kwargs)
        finally:
            timings[str(path)] = timings.get(str(path), 0.0) + time.perf_counter() - start

    engine.index_file, engine.check_file = index_file, check_file
    rules = list(load_catalog().values())
    out: dict = {"files": len(paths), "findings": [], "escaped": [], "timings": timings}
    try:
        result = engine.scan_files(paths, rules, jobs=1, cache=None)
        findings = result.findings
    except BaseException as exc:  # the target is that this never happens
        out["escaped"].append({"chunk": str(paths[0]), "error": f"{type(exc).__name__}: {exc}",
                               "traceback": traceback.format_exc()[-3000:]})
        findings = []
        for path in paths:  # find the culprit(s), keep the rest
            try:
                findings += engine.scan_files([path], rules, jobs=1, cache=None).findings
            except BaseException as exc2:
                out["escaped"].append({"file": str(path), "error": f"{type(exc2).__name__}: {exc2}"})
    out["findings"] = [{"rule": f.rule_id, "kind": f.kind.value, "path": f.path, "line": f.line,
                        "message": f.message} for f in findings]
    return out


# parent: the sweep -------------------------------------------------------------------------------
def default_trees() -> list[Path]:
    paths = sysconfig.get_paths()
    trees = [Path(paths["stdlib"]), Path(paths["purelib"])]
    if paths.get("platlib") and Path(paths["platlib"]) != Path(paths["purelib"]):
        trees.append(Path(paths["platlib"]))
    return trees


def collect(trees: list[Path]) -> list[Path]:
    """Every regular .py/.pyi file under `trees` (stdlib's site-packages not entered twice)."""
    files: list[Path] = []
    seen: set[str] = set()
    for tree in trees:
        for dirpath, dirnames, filenames in os.walk(tree):
            dirnames[:] = sorted(d for d in dirnames if not (d == "site-packages" and Path(dirpath) != tree
                                                             and any(Path(dirpath, d) == t for t in trees)))
            for name in sorted(filenames):
                if name.endswith((".py", ".pyi")):
                    path = Path(dirpath, name)
                    real = os.path.realpath(path)
                    if real not in seen and path.is_file():
                        seen.add(real)
                        files.append(path)
    return files


def chunked(files: list[Path], size: int) -> list[list[Path]]:
    return [files[i:i + size] for i in range(0, len(files), size)]


_CAUSES = [
    ("syntax error (Python 2 or invalid)", re.compile(r"^cannot parse: (invalid syntax|Missing parentheses|"
                                                       r"expected|unexpected|invalid|.*was never closed|unmatched|"
                                                       r"unterminated|cannot assign|Generator expression)")),
    ("indentation / tabs", re.compile(r"indent|tabs and spaces")),
    ("encoding / undecodable bytes", re.compile(r"codec|decode|encoding")),
    ("NUL bytes", re.compile(r"null bytes")),
    ("nested too deeply", re.compile(r"nested too deeply|too many nested")),
    ("libcst limit (CPython accepts)", re.compile(r"cannot parse with libcst")),
    ("cannot read", re.compile(r"^cannot read")),
]


def cause(finding: dict) -> str:
    if finding["rule"] == "BRK900":
        return "internal error (BRK900)"
    for name, pattern in _CAUSES:
        if pattern.search(finding["message"]):
            return name
    return "other: " + finding["message"][:60]


def sweep(trees: list[Path], workers: int, chunk_size: int, timeout: float, top: int) -> int:
    files = collect(trees)
    chunks = chunked(files, chunk_size)
    print(f"sweep: {len(files)} files under {', '.join(map(str, trees))}; {len(chunks)} chunks, "
          f"{workers} child process(es) at a time", flush=True)
    start = time.perf_counter()
    results: list[dict] = []
    dead: list[str] = []
    running: list[tuple[subprocess.Popen, Path, list[Path], float]] = []
    pending = list(chunks)
    tmp = Path(tempfile.mkdtemp(prefix="breakscan-sweep-"))
    done = 0
    while pending or running:
        while pending and len(running) < workers:
            chunk = pending.pop(0)
            listing = tmp / f"chunk{len(chunks) - len(pending)}.json"
            listing.write_text(json.dumps([str(p) for p in chunk]))
            proc = subprocess.Popen([sys.executable, __file__, "--chunk", str(listing)],
                                    stdout=subprocess.DEVNULL, stderr=listing.with_suffix(".err").open("w"))
            running.append((proc, listing, chunk, time.perf_counter()))
        time.sleep(0.05)
        for item in list(running):
            proc, listing, chunk, began = item
            if proc.poll() is None and time.perf_counter() - began < timeout:
                continue
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            err = listing.with_suffix(".err").read_text(errors="replace")
            running.remove(item)
            done += 1
            if proc.returncode == 0:
                results.append(json.loads(listing.with_suffix(".out").read_text()))
            else:
                dead.append(f"{chunk[0]} (+{len(chunk) - 1}): exit {proc.returncode}: {err.strip()[-300:]}")
            if done % 10 == 0 or done == len(chunks):
                print(f"  {done}/{len(chunks)} chunks, {time.perf_counter() - start:.0f} s", flush=True)
    wall = time.perf_counter() - start
    findings = [f for r in results for f in r["findings"]]
    errors = [f for f in findings if f["kind"] == "error"]
    escaped = [e for r in results for e in r["escaped"]]
    timings = {p: t for r in results for p, t in r["timings"].items()}
    scanned = sum(r["files"] for r in results)
    internal = [f for f in errors if f["rule"] == "BRK900"]
    print(f"\nfiles scanned: {scanned} of {len(files)} in {wall:.0f} s wall ({workers} processes); "
          f"non-error findings: {len(findings) - len(errors)}")
    print(f"error findings: {len(errors)} in {len({f['path'] for f in errors})} files")
    for name, n in Counter(cause(f) for f in errors).most_common():
        print(f"  {n:6d}  {name}")
    print(f"internal exceptions: {len(internal)} BRK900 findings, {len(escaped)} exceptions escaping "
          f"scan_files, {len(dead)} dead or timed-out children")
    for f in internal[:20]:
        print(f"  BRK900 {f['path']}:{f['line']}: {f['message'][:200]}")
    for e in escaped[:20]:
        print(f"  escaped: {e}")
    for d in dead[:20]:
        print(f"  dead: {d}")
    print(f"slowest files (read + index + parse + checks, seconds), of {len(timings)} timed:")
    for path, seconds in sorted(timings.items(), key=lambda kv: -kv[1])[:top]:
        size = Path(path).stat().st_size if Path(path).exists() else 0
        print(f"  {seconds:7.2f}  {size / 1024:8.0f} KiB  {path}")
    return 1 if internal or escaped or dead else 0


# long fuzz ---------------------------------------------------------------------------------------
def fuzz(n: int) -> int:
    """Run tests/test_fuzz.py's strategies with `n` examples each (hypothesis; no pytest)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from hypothesis import HealthCheck, given, settings

    import test_fuzz as tf

    strategies = {"torch-flavoured programs": tf.torch_modules(), "mutated fixtures": tf.mutated_fixtures()}
    try:
        import hypothesmith

        strategies["hypothesmith grammar"] = hypothesmith.from_grammar()
        strategies["hypothesmith nodes"] = hypothesmith.from_node()
    except ImportError:
        print("hypothesmith not installed: its strategies are skipped")
    failed = 0
    for name, strategy in strategies.items():
        counts: Counter = Counter()

        @settings(max_examples=n, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(strategy)
        def run(example):
            data = example.encode("utf-8", "surrogatepass") if isinstance(example, str) else example
            found = tf.scan_bytes(data)
            counts["examples"] += 1
            counts["with error finding"] += any(f.kind.value == "error" for f in found)
            counts["findings"] += sum(f.kind.value != "error" for f in found)

        start = time.perf_counter()
        try:
            run()
            status = "ok"
        except Exception as exc:  # a falsifying example: the static pass raised or broke its contract
            failed += 1
            status = f"FAILED: {type(exc).__name__}: {str(exc)[:500]}"
        print(f"fuzz {name}: {counts['examples']} examples, {counts['with error finding']} with an error "
              f"finding, {counts['findings']} rule findings, {time.perf_counter() - start:.0f} s: {status}",
              flush=True)
    return 1 if failed else 0


def big() -> int:
    """Time the static pass on a 10 MB module of code (functions), with and without a model."""
    from breakscan.catalog import load_catalog
    from breakscan.static.engine import scan_files

    chunk = "".join(f"def f{i}(a, b):\n    return a * {i} + b\n\n" for i in range(5000))
    parts = [chunk.replace("def f", f"def g{k}_") for k in range((10 * 2**20) // len(chunk) + 1)]
    model = "import torch\n\nclass Model(torch.nn.Module):\n    def forward(self, x):\n        return x.item()\n"
    rules = list(load_catalog().values())
    with tempfile.TemporaryDirectory() as tmp:
        for label, text in (("10 MB of functions, no compile region", "\n".join(parts)),
                            ("10 MB of functions + one nn.Module", "\n".join(parts) + "\n" + model)):
            path = Path(tmp, "big.py")
            path.write_text(text)
            start = time.perf_counter()
            found = scan_files([path], rules, jobs=1, cache=None).findings
            print(f"{label}: {path.stat().st_size / 2**20:.1f} MiB, {time.perf_counter() - start:.1f} s, "
                  f"findings {[(f.rule_id, f.line) for f in found]}", flush=True)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--paths", nargs="*", type=Path, help="trees to sweep (default: stdlib + site-packages)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--chunk-size", type=int, default=300)
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per chunk")
    parser.add_argument("--top", type=int, default=10, help="slowest files to list")
    parser.add_argument("--fuzz", type=int, metavar="N", help="long fuzz with N examples per strategy")
    parser.add_argument("--big", action="store_true", help="time a 10 MB module of code")
    parser.add_argument("--chunk", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.chunk:
        result = scan_chunk([Path(p) for p in json.loads(args.chunk.read_text())])
        args.chunk.with_suffix(".out").write_text(json.dumps(result))  # not stdout: a full pipe would block
        return 0
    if args.fuzz:
        return fuzz(args.fuzz)
    if args.big:
        return big()
    return sweep(args.paths or default_trees(), args.workers, args.chunk_size, args.timeout, args.top)


if __name__ == "__main__":
    sys.exit(main())
