"""`breakscan --fix` / `--diff` over paths: plan with the static pass, apply, repeat.

Planning uses the static pass only (the dynamic pass never runs code that is about to be
rewritten); each round fixes what the previous round left (two findings of one rule on one
line, edits that overlapped), until nothing changes or `MAX_ROUNDS`. `--diff` runs the same
rounds on a copy of the scanned files in a temporary directory and writes nothing here.
"""

from __future__ import annotations

import copy
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from breakscan.catalog import Rule
from breakscan.config import Config
from breakscan.findings import Finding
from breakscan.fix import FileFix, attach_rewrites, plan_fixes, write_fix
from breakscan.notebook import cells_text, is_notebook

MAX_ROUNDS = 8


@dataclass
class FixOutcome:
    """What was fixed: per file the text before the first round and after the last, and the
    findings the rewrites fixed (at their lines in the round that fixed them)."""

    files: dict[Path, FileFix] = field(default_factory=dict)
    fixed: list[Finding] = field(default_factory=list)


def fix_paths(paths: list[Path], config: Config, catalog: dict[str, Rule], *, root: Path,
              unsafe: bool = False, known: set[str] | None = None) -> FixOutcome:
    """Fix the findings under `paths` in place (safe rewrites; unsafe too when `unsafe`).

    Findings recorded in a baseline (`known` fingerprints) are left alone.
    """
    from breakscan.scan import run_scan

    static = copy.copy(config)
    static.dynamic = False
    outcome = FixOutcome()
    for _ in range(MAX_ROUNDS):
        report = run_scan(paths, static, catalog, root=root, warn=lambda _msg: None)
        findings = report.findings
        if known:
            from breakscan import baseline

            findings = baseline.apply(report, known).kept
        fixes = plan_fixes(attach_rewrites(findings, catalog, [*report.findings, *report.suppressed]), unsafe)
        fixes = [fix for fix in fixes if write_fix(fix)]  # a notebook edit leaving its cell: none
        if not fixes:
            break
        for fix in fixes:
            done = outcome.files.setdefault(fix.path, FileFix(fix.path, fix.old, fix.new))
            done.new = fix.new
            done.applied += fix.applied
            outcome.fixed += fix.applied
    return outcome


def diff_paths(paths: list[Path], config: Config, catalog: dict[str, Rule], *, root: Path,
               unsafe: bool = False, known: set[str] | None = None) -> FixOutcome:
    """What `fix_paths` would change, computed on a temporary copy; nothing here is written.

    The copy keeps each file's path relative to `root` (so baseline fingerprints still match);
    files outside `root` keep theirs relative to their common directory.
    """
    from breakscan.static.discovery import iter_python_files

    files = [f.resolve() for f in iter_python_files(paths, root=root, exclude=config.exclude,
                                                     respect_gitignore=config.respect_gitignore)]
    if not files:
        return FixOutcome()
    base = root.resolve()
    if not all(f.is_relative_to(base) for f in files):
        base = Path(os.path.commonpath([str(f.parent) for f in files]))
    with tempfile.TemporaryDirectory(prefix="breakscan-diff-") as tmp:
        mirror = {f: Path(tmp) / f.relative_to(base) for f in files}
        for original, twin in mirror.items():
            twin.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(original, twin)
        scratch = copy.copy(config)
        scratch.exclude, scratch.cache, scratch.respect_gitignore = [], False, False
        done = fix_paths(list(mirror.values()), scratch, catalog, root=Path(tmp), unsafe=unsafe, known=known)
        back = {twin.resolve(): original for original, twin in mirror.items()}
        outcome = FixOutcome()
        for twin, fix in done.files.items():
            original = back[twin.resolve()]
            applied = [f.replace(path=str(original)) for f in fix.applied]
            old, new = fix.old, fix.new
            if is_notebook(original):  # the diff of its code cells, each under a `# %% cell N` line
                old, new = cells_text(original.read_bytes()), cells_text(twin.read_bytes())
            outcome.files[original] = FileFix(original, old, new, applied)
            outcome.fixed += applied
    return outcome
