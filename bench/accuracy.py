"""Accuracy of the static pass against Dynamo's verdict, on the fixtures and on a corpus of real code.

Recall: Dynamo-observed break sites (graph breaks and frame fallbacks) that a static prediction
covers on the same line. Precision: of the static predictions on lines Dynamo traced in an
example (confirmed + refuted), the share Dynamo confirmed; predictions on lines never traced
are not counted.

The corpus (bench/corpus/, one module per code base: transformers, diffusers, torch_geometric,
kornia, monai, x_transformers) holds real model classes and functions built from tiny configs.
For each code base the static pass scans the installed package's whole source once (as a user
scanning that project would: compile regions cross files), together with the generated examples
files (a function case's file imports the function by name, so its region is rooted where a
user's would be); the dynamic pass runs each case (a module in eval and in train mode, a
function once) in a child process shared by the code base's cases: `torch.compile(fn,
backend="eager")` in default mode, called twice with the same inputs. Each case's Dynamo
findings are merged with the static findings as breakscan merges them.

Held-out half: every case is dev or held-out by the parity of the SHA-256 of its name
(bench/corpus `half`). `--half dev` prints and writes every miss and false positive;
`--half heldout` prints and writes only aggregate counts per code base, so that whoever writes
rules cannot tune them to it.

Usage: python bench/accuracy.py --half dev|heldout [--codebases kornia,monai] [--cases NAME,...]
       [--skip-fixtures] [--timeout S] [--no-write]
Results: bench/results/<half>-<UTC date>.txt (a run of a subset: <half>-<date>-<code bases>.txt).
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import importlib
import importlib.metadata
import os
import platform
import resource
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.corpus import CODEBASES, Case, cases, half  # noqa: E402
from breakscan.catalog import load_catalog  # noqa: E402
from breakscan.config import Config  # noqa: E402
from breakscan.dynamic.runner import run_dynamic_many  # noqa: E402
from breakscan.findings import Finding, Kind, Status  # noqa: E402
from breakscan.merge import merge  # noqa: E402
from breakscan.scan import active_rules, run_scan  # noqa: E402
from breakscan.static.engine import scan_files  # noqa: E402

BREAKS = (Kind.GRAPH_BREAK, Kind.FRAME_FALLBACK)
RESULTS = ROOT / "bench" / "results"
DISTRIBUTIONS = {"transformers": "transformers", "diffusers": "diffusers", "torch_geometric": "torch-geometric",
                 "kornia": "kornia", "monai": "monai", "x_transformers": "x-transformers"}


@dataclass
class Score:
    """Counts for one input: observed break sites, recalled ones, confirmed and refuted predictions."""

    name: str
    observed: int = 0
    recalled: int = 0
    confirmed: int = 0
    refuted: int = 0
    errors: int = 0  # cases whose build or call raised, or whose child died (BRK902/BRK903)
    cases: int = 0
    misses: list[str] = field(default_factory=list)
    false_positives: list[str] = field(default_factory=list)

    def add(self, findings: list[Finding], scanned: set[str], short) -> None:
        """Count `findings` (merged); `scanned` the resolved paths the static pass read."""
        for f in findings:
            where = f"{short(f.path)}:{f.line}"
            if f.kind in BREAKS and f.status in (Status.CONFIRMED, Status.OBSERVED):
                self.observed += 1
                if f.status is Status.CONFIRMED:
                    self.recalled += 1
                else:
                    tag = "" if str(Path(f.path).resolve()) in scanned else " (file not scanned)"
                    self.misses.append(f"{where} {f.rule_id} {f.message[:90]}{tag}")
            if f.kind in BREAKS and f.rule_id.startswith("BRK"):
                if f.status is Status.CONFIRMED:
                    self.confirmed += 1
                elif f.status is Status.REFUTED:
                    self.refuted += 1
                    self.false_positives.append(f"{where} {f.rule_id} {f.code[:70]}")

    def absorb(self, other: Score) -> None:
        """Add `other`'s counts (not its details) to this one."""
        for attr in ("observed", "recalled", "confirmed", "refuted", "errors", "cases"):
            setattr(self, attr, getattr(self, attr) + getattr(other, attr))

    @property
    def recall(self) -> float | None:
        return self.recalled / self.observed if self.observed else None

    @property
    def precision(self) -> float | None:
        judged = self.confirmed + self.refuted
        return self.confirmed / judged if judged else None


def _pct(x: float | None) -> str:
    return "   n/a" if x is None else f"{100 * x:5.1f}%"


def score_fixtures() -> Score:
    files = sorted((ROOT / "fixtures").glob("*.py"))
    report = run_scan(files, Config(), load_catalog(), root=ROOT, show_refuted=True)
    score = Score("fixtures", cases=len(files))
    score.add(report.findings, {str(f.resolve()) for f in files}, lambda p: os.path.relpath(p, ROOT))
    return score


def package_root(codebase: str) -> Path:
    """The installed package directory of `codebase` (imports it)."""
    module = importlib.import_module(CODEBASES[codebase][1])
    return Path(module.__file__).resolve().parent


def versions() -> dict[str, str]:
    """Installed versions of torch, Python and each code base's distribution (`missing` when absent)."""
    out = {"python": platform.python_version()}
    for name, dist in {"torch": "torch", **DISTRIBUTIONS}.items():
        try:
            out[name] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            out[name] = "missing"
    return out


EXAMPLES = '''\
import sys
sys.path.insert(0, {root!r})
from bench.corpus import build
{import_line}

def breakscan_examples(device="cpu"):
    fn, args, kwargs = build({key!r}, {mode!r}, device)
    {check}yield {fn}, {args}, kwargs
    yield {fn}, {args}, kwargs
'''


def examples_file(folder: Path, case: Case, mode: str) -> Path:
    """Write the examples file of `case` in `mode`: Dynamo compiles what `build` returns, called
    twice. A function case imports its target by name and yields that name, so the static pass
    roots the region at it; a method target (`pkg.mod.Class.step`) yields `Class.step` with the
    built instance as first argument (the static pass does not root `obj.step` of a local
    instance; Dynamo traces the same code either way)."""
    import_line, check, fn, call_args = "", "", "fn", "args"
    module, _, attr = case.target.rpartition(".")
    owner_module, _, owner = module.rpartition(".")
    if case.target and owner[:1].isupper():
        import_line = f"from {owner_module} import {owner}"
        check, fn, call_args = f"assert type(fn.__self__) is {owner}\n    ", f"{owner}.{attr}", "(fn.__self__, *args)"
    elif case.target:
        import_line = f"from {module} import {attr} as target"
        check, fn = "assert fn is target\n    ", "target"
    path = folder / f"case_{hashlib.sha256(f'{case.key}:{mode}'.encode()).hexdigest()[:12]}.py"
    path.write_text(EXAMPLES.format(root=str(ROOT), key=case.key, mode=mode, import_line=import_line,
                                    check=check, fn=fn, args=call_args))
    return path


def run_codebase(codebase: str, selected: list[Case], rules, jobs: int, timeout: float,
                 log) -> tuple[list[tuple[str, Score]], float]:
    """Static pass over the package once, then the dynamic pass on each (case, mode); per-run Scores."""
    from breakscan.static.cache import Cache

    root = package_root(codebase)
    files = sorted(root.rglob("*.py"))
    with tempfile.TemporaryDirectory(prefix=f"bench-{codebase}-") as tmp:
        runs = [(case, mode, examples_file(Path(tmp), case, mode)) for case in selected for mode in case.modes]
        t0 = time.perf_counter()
        static = scan_files([*files, *(p for _, _, p in runs)], rules, jobs=jobs, cache=Cache()).findings
        log(f"  {codebase}: static pass over {len(files)} files, {time.perf_counter() - t0:.0f} s")
        t0 = time.perf_counter()
        finished = [0]

        def progress(record: dict) -> None:
            if record.get("type") == "done":
                finished[0] += 1
                if finished[0] % 10 == 0:
                    log(f"  {codebase}: {finished[0]} of {len(runs)} runs done")

        results = run_dynamic_many([(p, None) for _, _, p in runs], project_root=root, timeout=timeout,
                                   device="cpu", progress=progress)
        dyn_s = time.perf_counter() - t0
    scanned = {str(p) for p in files}

    def short(path: str) -> str:
        p = Path(path).as_posix()
        marker = f"/{root.name}/"
        return p.split(marker, 1)[-1] if marker in p else os.path.relpath(p, ROOT)

    scores = []
    for (case, mode, _), result in zip(runs, results):
        score = Score(f"{case.name} [{mode}]", cases=1)
        merged = merge(static, [f for f in result.findings if f.kind is not Kind.ERROR], result.traced_lines)
        score.add(merged, scanned, short)
        failed = [f for f in result.findings if f.kind is Kind.ERROR and f.rule_id in ("BRK902", "BRK903")]
        for f in result.findings:
            if f.kind is Kind.ERROR:
                score.misses.append(f"ERROR {f.rule_id}: {f.message[:160]}")
        score.errors = 1 if failed else 0
        scores.append((case.key, score))
    return scores, dyn_s


def main() -> int:
    """Run one half of the corpus; print (and write) the table, with details only for dev."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--half", choices=("dev", "heldout"), required=True)
    parser.add_argument("--codebases", default="", help=f"comma-separated subset of {', '.join(CODEBASES)}")
    parser.add_argument("--cases", default="", help="comma-separated case names (codebase/name or name)")
    parser.add_argument("--skip-fixtures", action="store_true")
    parser.add_argument("--timeout", type=float, default=300.0, help="per case and mode, seconds")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--no-write", action="store_true", help="print only; write no results file")
    args = parser.parse_args()
    detailed = args.half == "dev"
    wanted_bases = [c for c in args.codebases.split(",") if c] or list(CODEBASES)
    wanted = set(filter(None, args.cases.split(",")))
    start, cpu0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    rules = active_rules(load_catalog(), Config(), None)
    lines: list[str] = []
    vers = versions()
    lines.append(f"half: {args.half}   date: {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC")
    lines.append("versions: " + ", ".join(f"{k} {v}" for k, v in vers.items()))
    table: list[Score] = []
    per_case: list[Score] = []
    if not args.skip_fixtures and detailed:
        fixtures = score_fixtures()
        table.append(fixtures)
        per_case.append(fixtures)
    total = Score("corpus, total")
    header = (f"{'input':44} {'runs':>5} {'errors':>6} {'observed':>8} {'recalled':>8} {'recall':>7} "
              f"{'confirmed':>9} {'refuted':>7} {'precision':>9}")

    def row(s: Score) -> str:
        return (f"{s.name:44} {s.cases:5} {s.errors:6} {s.observed:8} {s.recalled:8} {_pct(s.recall):>7} "
                f"{s.confirmed:9} {s.refuted:7} {_pct(s.precision):>9}")

    def write(partial: bool) -> None:
        """The results so far; printed and written at the end, written after each code base."""
        out = list(lines)
        if partial:
            out.append(f"PARTIAL: {done} of {len(wanted_bases)} code bases done, run still going")
        out += ["", "per code base:", header, *(row(s) for s in [*table, total])]
        if detailed:
            out += ["", "per case:", header, *(row(s) for s in per_case), ""]
            for s in per_case:
                out += [f"miss  [{s.name}] {m}" for m in s.misses]
                out += [f"false positive [{s.name}] {fp}" for fp in s.false_positives]
        cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        own = resource.getrusage(resource.RUSAGE_SELF)
        cpu = cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime + own.ru_utime + own.ru_stime
        out += ["", f"runtime: {time.perf_counter() - start:.0f} s wall, {cpu:.0f} s CPU (this process and its "
                    f"children; the machine's 2 cores were shared with other work)"]
        text = "\n".join(out) + "\n"
        if not partial:
            print(text, end="")
        if not args.no_write:
            RESULTS.mkdir(exist_ok=True)
            subset = "" if wanted_bases == list(CODEBASES) and not wanted else "-" + "+".join(wanted_bases)
            path = RESULTS / f"{args.half}-{datetime.datetime.now(datetime.UTC):%Y-%m-%d}{subset}.txt"
            path.write_text(text)
            if not partial:
                log(f"written {path.relative_to(ROOT)}")

    done = 0
    for codebase in wanted_bases:
        done += 1
        selected = [c for c in cases(codebase) if half(c) == args.half
                    and (not wanted or c.key in wanted or c.name in wanted)]
        if not selected:
            continue
        if vers.get(codebase) == "missing":
            lines.append(f"{codebase}: not installed, skipped")
            continue
        scores, dyn_s = run_codebase(codebase, selected, rules, args.jobs, args.timeout, log)
        base = Score(codebase)
        for key, s in scores:
            base.absorb(s)
            if detailed:
                s.name = f"{key} [{s.name.rsplit('[', 1)[1]}"
                per_case.append(s)
        log(f"  {codebase}: {base.cases} runs, dynamic pass {dyn_s:.0f} s")
        table.append(base)
        total.absorb(base)
        write(partial=True)
    write(partial=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
