"""Accuracy of the static pass against Dynamo's verdict, on the fixtures and on real models.

Recall: Dynamo-observed break sites (graph breaks and frame fallbacks) that a static prediction
covers on the same line. Precision: of the static predictions on lines Dynamo traced in an
example (confirmed + refuted), the share Dynamo confirmed; predictions on lines never traced
are not counted. Real models: the static pass scans the whole installed transformers package
once (as a user scanning that project would: compile regions cross files, e.g. into the
decorators in transformers/utils); the dynamic pass builds each model from a tiny config
(bench/accuracy_models.py) and its breaks are merged with those static findings.

Usage: python bench/accuracy.py [--models gpt2,longformer] [--skip-fixtures] [--heldout]

`--heldout` scores the held-out models instead: transformers models never used while writing
or tuning the rules, built from their default configs shrunk to two tiny layers.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import tempfile
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from breakscan.catalog import load_catalog  # noqa: E402
from breakscan.config import Config  # noqa: E402
from breakscan.dynamic.runner import run_dynamic  # noqa: E402
from breakscan.findings import Finding, Kind, Status  # noqa: E402
from breakscan.merge import merge  # noqa: E402
from breakscan.scan import active_rules, run_scan  # noqa: E402
from breakscan.static.engine import scan_files  # noqa: E402

BREAKS = (Kind.GRAPH_BREAK, Kind.FRAME_FALLBACK)


@dataclass
class Score:
    """Counts for one input: observed break sites, recalled ones, confirmed and refuted predictions."""

    name: str
    observed: int = 0
    recalled: int = 0
    confirmed: int = 0
    refuted: int = 0
    misses: list[str] = field(default_factory=list)
    false_positives: list[str] = field(default_factory=list)

    def add(self, findings: list[Finding], scanned: set[str]) -> None:
        for f in findings:
            where = f"{_short(f.path)}:{f.line}"
            if f.kind in BREAKS and f.status in (Status.CONFIRMED, Status.OBSERVED):
                self.observed += 1
                if f.status is Status.CONFIRMED:
                    self.recalled += 1
                else:
                    tag = "" if str(Path(f.path).resolve()) in scanned else " (file not scanned)"
                    self.misses.append(f"{where} {f.rule_id} {f.message[:70]}{tag}")
            if f.kind in BREAKS and f.rule_id.startswith("BRK"):
                if f.status is Status.CONFIRMED:
                    self.confirmed += 1
                elif f.status is Status.REFUTED:
                    self.refuted += 1
                    self.false_positives.append(f"{where} {f.rule_id} {f.code[:60]}")

    @property
    def recall(self) -> float | None:
        return self.recalled / self.observed if self.observed else None

    @property
    def precision(self) -> float | None:
        judged = self.confirmed + self.refuted
        return self.confirmed / judged if judged else None


def _short(path: str) -> str:
    p = Path(path).as_posix()
    return p.split("/transformers/", 1)[-1] if "/transformers/" in p else os.path.relpath(p, ROOT)


def _pct(x: float | None) -> str:
    return "   n/a" if x is None else f"{100 * x:5.1f}%"


def score_fixtures() -> Score:
    files = sorted((ROOT / "fixtures").glob("*.py"))
    report = run_scan(files, Config(), load_catalog(), root=ROOT, show_refuted=True)
    score = Score("fixtures")
    score.add(report.findings, {str(f.resolve()) for f in files})
    return score


def transformers_static(rules, jobs: int) -> list[Finding]:
    """The static pass over the whole installed transformers package (cached between runs)."""
    import transformers

    from breakscan.static.cache import Cache

    tf_root = Path(transformers.__file__).resolve().parent
    files = sorted(tf_root.rglob("*.py"))
    return scan_files(files, rules, jobs=jobs, cache=Cache()).findings


def score_model(name: str, modules: list[str], static_findings: list[Finding]) -> Score:
    """Dynamo on the model, merged with the static findings as breakscan does."""
    import transformers

    tf_root = Path(transformers.__file__).resolve().parent
    sources = [Path(importlib.import_module(m).__file__).resolve() for m in modules]
    with tempfile.TemporaryDirectory() as tmp:
        entry = Path(tmp) / f"bench_{name}.py"
        entry.write_text(textwrap.dedent(f"""
            import sys
            sys.path.insert(0, {str(ROOT)!r})
            from bench.accuracy_models import build

            def breakscan_examples(device="cpu"):
                model, args, kwargs = build({name!r}, device)
                yield model, args, kwargs
                yield model, args, kwargs
        """))
        dynamic = run_dynamic(entry, project_root=tf_root, timeout=600)
    merged = merge(static_findings, [f for f in dynamic.findings if f.kind is not Kind.ERROR],
                   dynamic.traced_lines)
    score = Score(name)
    score.add(merged, {str(p.resolve()) for p in tf_root.rglob("*.py")} | {str(s) for s in sources})
    for f in dynamic.findings:
        if f.kind is Kind.ERROR:
            score.misses.append(f"ERROR {f.rule_id}: {f.message[:100]}")
    return score


def main() -> int:
    """Print per-input and total recall/precision, then every miss and false positive."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default="", help="comma-separated subset of bench/accuracy_models.py")
    parser.add_argument("--skip-fixtures", action="store_true")
    parser.add_argument("--heldout", action="store_true",
                        help="score the held-out models (bench/accuracy_models.py HELDOUT) instead")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    from bench.accuracy_models import HELDOUT, MODELS

    wanted = set(filter(None, args.models.split(",")))
    rules = active_rules(load_catalog(), Config(), None)
    scores: list[Score] = []
    if not args.skip_fixtures:
        scores.append(score_fixtures())
    real: list[Score] = []
    static_findings = transformers_static(rules, args.jobs)
    print(f"  static pass over transformers: {len(static_findings)} findings", file=sys.stderr, flush=True)
    for model in HELDOUT if args.heldout else MODELS:
        if wanted and model["name"] not in wanted:
            continue
        real.append(score_model(model["name"], list(model["modules"]), static_findings))
        print(f"  measured {model['name']}", file=sys.stderr, flush=True)
    total = Score("real models, total")
    for s in real:
        for attr in ("observed", "recalled", "confirmed", "refuted"):
            setattr(total, attr, getattr(total, attr) + getattr(s, attr))
    print(f"{'input':28} {'observed':>8} {'recalled':>8} {'recall':>7} {'confirmed':>9} {'refuted':>7} {'precision':>9}")
    for s in [*scores, *real, total]:
        print(f"{s.name:28} {s.observed:8} {s.recalled:8} {_pct(s.recall):>7} {s.confirmed:9} {s.refuted:7} {_pct(s.precision):>9}")
    for s in [*scores, *real]:
        for miss in s.misses:
            print(f"miss  [{s.name}] {miss}")
        for fp in s.false_positives:
            print(f"false positive [{s.name}] {fp}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
