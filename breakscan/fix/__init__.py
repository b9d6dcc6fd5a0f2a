"""`--fix` / `--diff`: rewrites for fixable findings, applied with libcst.

A rule is fixable when its file has an `[autofix]` table naming a rewrite (rewrites.py) and
its safety (`safe`: behaviour outside compiled code is unchanged; `unsafe`: results can
change in some cases, applied only with `--unsafe-fixes`). `attach_rewrites` gives each
fixable finding its `Rewrite` (whole-line edits; SARIF `fixes` carry the same);
`plan_fixes` applies them per file, skipping a rewrite whose edits overlap one already taken
(the next `--fix` round picks it up).
"""

from __future__ import annotations

import os
import stat
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from breakscan.catalog import Rule
from breakscan.findings import Edit, Finding, Rewrite, Status, relative_path

# libcst (through `source` and `rewrites`) is imported by the functions that parse: attaching
# rewrites that the cache holds needs none of it.

# Rewrites that weigh the whole report (rewrites.NEEDS_FINDINGS, named here so that deciding what
# to cache imports no libcst): their rewrites depend on the whole report, which their cache key holds.
CONTEXT_REWRITES = frozenset({"reorder-print"})

__all__ = ["FileFix", "attach_rewrites", "plan_fixes", "unified_diff", "write_fix", "is_fixable"]


def attach_rewrites(findings: list[Finding], rules: dict[str, Rule],
                    context: list[Finding] | None = None, cache=None) -> list[Finding]:
    """`findings` with `rewrite` set where the rule is fixable and the code has a shape its
    rewrite knows. Only files holding such findings are parsed, and with a `cache`
    (breakscan.static.cache.Cache) only those whose rewrites it does not hold. Never raises: a
    rewrite that fails on a node leaves that finding without a fix. Rewrites that weigh the whole
    report (rewrites.NEEDS_FINDINGS) see `context` (default: `findings`), which should also hold
    the findings a suppression comment or a baseline hides; their cached rewrites are keyed on
    the whole report's findings too."""
    context = findings if context is None else context
    wanted: dict[str, list[int]] = defaultdict(list)
    for i, f in enumerate(findings):
        rule = rules.get(f.rule_id)
        if rule is not None and rule.autofix is not None and f.status is not Status.REFUTED:
            wanted[f.path].append(i)
    out = list(findings)
    report_identity = sorted((f.rule_id, f.path, f.line, f.gb_ids) for f in context) if cache else ()
    for path, indices in wanted.items():
        mine = [findings[i] for i in indices]
        identity = [_fix_identity(f, rules) for f in mine]
        if any(rules[f.rule_id].autofix.rewrite in CONTEXT_REWRITES for f in mine):
            identity.append(report_identity)  # such a rewrite holds only for this same report
        key = cache.fixes_key(Path(path), identity) if cache else None
        rewrites = cache.get_fixes(path, key) if key else None
        if rewrites is None or len(rewrites) != len(mine):
            rewrites = _rewrites(Path(path), mine, rules, context)
            if key and rewrites is not None:
                cache.put_fixes(path, key, rewrites)
        for i, rewrite in zip(indices, rewrites or ()):
            if rewrite is not None:
                out[i] = findings[i].replace(rewrite=rewrite)
    if cache is not None:
        cache.save()
    return out


def _fix_identity(f: Finding, rules: dict[str, Rule]) -> tuple:
    """What a finding's rewrite depends on besides its file's text: its rule's autofix and span."""
    autofix = rules[f.rule_id].autofix
    return (f.rule_id, autofix.rewrite, autofix.description, autofix.safety, f.line, f.column,
            f.end_line, f.end_column)


def _rewrites(path: Path, findings: list[Finding], rules: dict[str, Rule],
              context: list[Finding]) -> list[Rewrite | None] | None:
    """The rewrite of each of `path`'s fixable `findings` (None where its code has no shape the
    rewrite knows); None when the file cannot be loaded (changed or vanished since the scan).
    Rewrites in rewrites.NEEDS_FINDINGS also get `context`, the whole report's findings."""
    from breakscan.fix import source
    from breakscan.fix.rewrites import NEEDS_FINDINGS, REWRITES

    try:
        src = source.load(path)
    except Exception:
        src = None
    if src is None:
        return None
    out: list[Rewrite | None] = []
    for f in findings:
        autofix = rules[f.rule_id].autofix
        try:
            fn = REWRITES.get(autofix.rewrite)
            extra = (context,) if autofix.rewrite in NEEDS_FINDINGS else ()
            edits = fn(src, f, *extra) if fn is not None else None
        except Exception:  # breakscan's own bug on an odd node: no fix rather than no report
            edits = None
        out.append(Rewrite(autofix.description, autofix.safety, tuple(edits)) if edits else None)
    return out


def is_fixable(f: Finding, unsafe: bool = False) -> bool:
    """Whether `--fix` (with `--unsafe-fixes` when `unsafe`) would apply `f`'s rewrite."""
    return f.rewrite is not None and (unsafe or f.rewrite.safety == "safe")


@dataclass
class FileFix:
    """The fixed text of one file and the findings whose rewrites made it."""

    path: Path
    old: str
    new: str
    applied: list[Finding] = field(default_factory=list)
    edits: list[Edit] = field(default_factory=list)  # the edits of `old` that make `new`


def plan_fixes(findings: list[Finding], unsafe: bool = False) -> list[FileFix]:
    """Apply fixable findings' edits to each file's text (in memory), earliest finding first;
    a rewrite whose edits overlap one taken already is left for a later round."""
    from breakscan.fix import source

    by_file: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        if is_fixable(f, unsafe):
            by_file[f.path].append(f)
    out = []
    for path, group in sorted(by_file.items()):
        src = source.load(Path(path))
        if src is None:
            continue
        taken: list[source.Edit] = []
        applied: list[Finding] = []
        for f in sorted(group, key=Finding.sort_key):
            edits = f.rewrite.edits
            if any(source.overlaps(e, t) for e in edits for t in taken):
                continue
            taken += edits
            applied.append(f)
        new = source.apply_edits(src.text, taken)
        if new != src.text:
            out.append(FileFix(Path(path), src.text, new, applied, taken))
    return out


def unified_diff(fix: FileFix, root: Path | None) -> str:
    """`--diff` output for one file: a unified diff with `a/` and `b/` paths relative to root."""
    import difflib  # here, as tempfile in write_fix: a report's `[*]` markers need neither

    name = relative_path(str(fix.path), root)
    lines = difflib.unified_diff(fix.old.splitlines(keepends=True), fix.new.splitlines(keepends=True),
                                 fromfile=f"a/{name}", tofile=f"b/{name}")
    return "".join(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n"
                   for line in lines)


def write_fix(fix: FileFix) -> bool:
    """Write the fixed text in the file's own encoding (and BOM), atomically, keeping its mode.

    A notebook gets the edits in its cells' sources, through nbformat (breakscan.notebook:
    outputs, metadata and cell ids kept); False, and nothing written, when an edit would leave
    its cell or touch an IPython line there.
    """
    import tempfile

    from breakscan.fix import source
    from breakscan.notebook import fixed_notebook, is_notebook

    data = fix.path.read_bytes()
    if is_notebook(fix.path):
        payload = fixed_notebook(data, fix.edits)
        if payload is None:
            return False
    else:
        parsed = source.load(fix.path)
        encoding = parsed.module.encoding if parsed is not None else "utf-8"
        payload = fix.new.encode(encoding)
        if data.startswith(b"\xef\xbb\xbf") and not payload.startswith(b"\xef\xbb\xbf"):
            payload = b"\xef\xbb\xbf" + payload
    target = fix.path.resolve()
    mode = stat.S_IMODE(target.stat().st_mode)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return True
