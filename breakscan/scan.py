"""One breakscan run: discover files, static pass, dynamic pass where asked, merge → Report."""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from breakscan import __version__
from breakscan.catalog import Rule
from breakscan.config import Config, effective_severity, parse_version, rule_selected
from breakscan.findings import EntryReport, Finding, Interruption, Report
from breakscan.interrupt import Interrupt, catch_interrupts
from breakscan.merge import merge
from breakscan.static.discovery import iter_python_files
from breakscan.static.engine import scan_files
from breakscan.static.suppress import apply_suppressions

_EXAMPLES_HOOK = re.compile(rb"^def breakscan_examples\s*\(", re.MULTILINE)


_TORCH_VERSION = re.compile(r"""^__version__\s*(?::\s*str\s*)?=\s*['"]([^'"]+)['"]""", re.MULTILINE)


def installed_torch_version() -> str | None:
    """The installed torch's version string, without importing torch.

    Read from `torch/version.py` of the package `importlib.util.find_spec` locates (cheap: no
    import, no scan of every installed distribution); package metadata is the fallback.
    """
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        return None
    for location in spec.submodule_search_locations or ():
        try:
            match = _TORCH_VERSION.search((Path(location) / "version.py").read_text("utf-8"))
        except OSError:
            continue
        if match:
            return match.group(1)
    from importlib import metadata  # slower: scans installed distributions

    try:
        return metadata.version("torch")
    except metadata.PackageNotFoundError:
        return None


def active_rules(catalog: dict[str, Rule], config: Config, torch_version: tuple[int, int] | None) -> list[Rule]:
    """Rules selected by the config that break on `torch_version` and this Python, each as it
    stands on that version (`Rule.for_torch`: only the patterns that break there, that version's
    graph-break ids). Unknown version (`None`): every rule whole."""
    out = []
    for rule in catalog.values():
        if not (rule.match and rule_selected(rule.id, config) and rule.applies_to_python()):
            continue
        resolved = rule.for_torch(torch_version)
        if resolved is not None:
            out.append(resolved)
    return out


def verified_span(catalog: dict[str, Rule]) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """The oldest and newest torch (major, minor) any rule's examples were confirmed on (`verified`)."""
    versions = [parse_version(v) for r in catalog.values() for v in r.verified]
    return (min(versions), max(versions)) if versions else None


def newest_verified(catalog: dict[str, Rule]) -> tuple[int, int] | None:
    """The newest torch (major, minor) any rule's examples were confirmed on (`verified`)."""
    span = verified_span(catalog)
    return span[1] if span else None


def unverified_note(catalog: dict[str, Rule], torch_version: tuple[int, int] | None) -> str | None:
    """A one-line note when `torch_version` lies outside every release the catalog was verified
    on (newer: its predictions may be stale; older: below what the rules were checked on);
    None otherwise."""
    span = verified_span(catalog)
    if torch_version is None or span is None or span[0] <= torch_version <= span[1]:
        return None
    have, (old, new) = ".".join(map(str, torch_version)), (".".join(map(str, v)) for v in span)
    if torch_version > span[1]:
        return (f"torch {have} is newer than every version breakscan's rules were verified on "
                f"(up to {new}): predictions follow {new}'s rules and may be stale")
    return (f"torch {have} is older than every version breakscan's rules were verified on "
            f"({old} to {new}): predictions follow the rules' stated ranges, unconfirmed there")


def defines_examples(data: bytes) -> bool:
    """Whether a module defines `breakscan_examples()` at top level (a regex pre-filter, then
    CPython's parser: the same words in a docstring, a comment or a method never count, so a
    file that does not ask to be run is never imported)."""
    if not _EXAMPLES_HOOK.search(data):
        return False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "breakscan_examples"
               for node in tree.body)


def notebooks_with_examples(files: list[Path]) -> list[Path]:
    """The notebooks among `files` whose code cells define `breakscan_examples()`: the dynamic pass
    does not run notebooks (their code is cells, not an importable module), so these are named."""
    from breakscan.notebook import is_notebook, module_text

    return [path for path in files if is_notebook(path)
            and defines_examples((module_text(path) or "").encode("utf-8"))]


def dynamic_targets(files: list[Path], config: Config) -> list[tuple[Path, str | None]]:
    """(file, examples function) pairs: files defining `breakscan_examples()` (None: that
    function), then `entries` (absolute files; see `Config.resolved_entries`)."""
    from breakscan.notebook import is_notebook

    targets: list[tuple[Path, str | None]] = []
    for path in files:
        if is_notebook(path):  # never run: see `notebooks_with_examples`
            continue
        try:
            if defines_examples(path.read_bytes()):
                targets.append((path, None))
        except OSError:
            continue
    targets += [(entry.path, entry.function) for entry in config.resolved_entries()]
    return targets


@dataclass
class DynamicOutcome:
    """Combined results of the dynamic pass over all targets."""

    findings: list[Finding] = field(default_factory=list)
    entries: list[EntryReport] = field(default_factory=list)
    traced: dict[str, set[int]] = field(default_factory=dict)
    device: str = ""
    ran: bool = False
    targets: int = 0
    cut_short: int = 0  # targets an interrupt stopped before they finished (or began)


def default_jobs() -> int:
    """Dynamic-pass children to run at once: 2 where there are 4+ CPUs, else 1 (measured: on
    2 shared cores two children are slower than one, which pays Dynamo's set-up once)."""
    return 2 if (os.cpu_count() or 1) >= 4 else 1


def run_dynamic_targets(targets: list[tuple[Path, str | None]], config: Config, root: Path,
                        jobs: int | None = None, progress=None, stop: Interrupt | None = None) -> DynamicOutcome:
    """Run the targets in at most `jobs` child processes, several targets per child.

    Each child pays torch's import and Dynamo's set-up once for its share of the targets
    (see breakscan.dynamic.runner.run_dynamic_many); results keep the targets' order.
    `progress` is called with each finished entry / target record (see the runner);
    `stop` stops every child when it holds a signal (see breakscan.interrupt).
    """
    from breakscan.dynamic.runner import run_dynamic_many

    outcome = DynamicOutcome(ran=bool(targets))
    n = max(1, min(jobs or default_jobs(), len(targets) or 1))
    shares = [list(range(len(targets)))[k::n] for k in range(n)]

    def one(share: list[int]):
        return run_dynamic_many([targets[i] for i in share], project_root=root, device=config.device,
                                timeout=config.timeout, backend=config.backend, progress=progress, stop=stop,
                                dynamo_config=config.dynamo_config)

    from concurrent.futures import ThreadPoolExecutor

    results: dict[int, object] = {}
    with ThreadPoolExecutor(max_workers=n) as pool:
        for share, share_results in zip(shares, pool.map(one, shares)):
            results.update(zip(share, share_results))
    for i in range(len(targets)):
        merge_dynamic(outcome, results[i])
    outcome.targets = len(targets)
    outcome.cut_short = sum(bool(getattr(r, "interrupted", False)) for r in results.values())
    return outcome


def merge_dynamic(outcome: DynamicOutcome, result) -> None:
    """Add one DynamicResult's findings, entries and traced lines to `outcome`."""
    outcome.findings.extend(result.findings)
    outcome.entries.extend(result.entries)
    for path, lines in result.traced_lines.items():
        outcome.traced.setdefault(path, set()).update(lines)
    outcome.device = outcome.device or result.device
    outcome.ran = True


def torch_importable() -> bool:
    """Whether torch can be imported here (checked without importing it)."""
    import importlib.util

    return importlib.util.find_spec("torch") is not None


@dataclass
class StaticPass:
    """The static half of a run: files scanned, their findings, the torch version judged."""

    files: list[Path]
    findings: list[Finding]
    files_scanned: int
    torch_version: str | None
    suppressed: list[Finding] = field(default_factory=list)  # covered by a suppression comment
    gb_ids: dict[str, tuple[str, ...]] = field(default_factory=dict)  # rule id -> its GB ids (catalog)


def static_pass(paths: list[Path], config: Config, catalog: dict[str, Rule], *, root: Path,
                verbose: bool = False, progress=None, cache=None, region_pass=None,
                report_paths=None) -> StaticPass:
    """Discover the Python files under `paths` and run the static pass over them.

    `progress(n_files)` may return a callback called as files finish (for a progress bar).
    `cache`: the breakscan.static.cache.Cache to use when `config.cache` is on (default: a new
    one; the language server passes one that also keeps entries in memory). `region_pass` and
    `report_paths`: as breakscan.static.engine.scan_files takes them (the language server's).
    """
    version_text = config.torch_version or installed_torch_version()
    torch_version = parse_version(version_text) if version_text else None
    files = list(iter_python_files(paths, root=root, exclude=config.exclude,
                                   respect_gitignore=config.respect_gitignore))
    rules = active_rules(catalog, config, torch_version)
    from breakscan.static.cache import Cache
    from breakscan.static.engine import default_jobs

    on_file = progress(len(files)) if progress else None
    try:
        static = scan_files(files, rules, regions_mode=config.regions, verbose=verbose,
                            jobs=config.jobs or default_jobs(), cache=(cache or Cache()) if config.cache else None,
                            progress=on_file, dynamo_config=config.dynamo_config,
                            region_pass=region_pass, report_paths=report_paths)
    finally:
        if hasattr(on_file, "close"):
            on_file.close()
    return StaticPass(files=files, findings=static.findings, files_scanned=len(static.files),
                      torch_version=version_text, suppressed=static.suppressed,
                      gb_ids={r.id: r.gb_ids for r in catalog.values()})


def build_report(static: StaticPass, outcome: DynamicOutcome, config: Config, *, root: Path,
                 show_refuted: bool = False) -> Report:
    """Merge both passes, apply suppression comments, selection and severities: the Report.

    Dynamo's findings in libraries move to the user's call site first (breakscan.callsite).
    Suppressed static findings take part in the merge, so that Dynamo's break on their line is
    confirmed by them (not left `observed`), and are dropped after it with every other finding
    a comment covers (breakscan.static.suppress.apply_suppressions).
    """
    from breakscan.callsite import at_user_call_site

    observed = at_user_call_site(outcome.findings, outcome.entries, root)
    findings = merge([*static.findings, *static.suppressed], observed, outcome.traced)
    findings, suppressed = apply_suppressions(findings, static.gb_ids)
    findings = [f.replace(severity=effective_severity(f.rule_id, f.severity, config))
                for f in findings if f.rule_id.startswith("BRK9") or rule_selected(f.rule_id, config)]
    return Report(root=root, findings=findings, files_scanned=static.files_scanned,
                  entries=outcome.entries, torch_version=static.torch_version, dynamic_ran=outcome.ran,
                  device=outcome.device, show_refuted=show_refuted, tool_version=__version__,
                  suppressed=suppressed)


def run_scan(paths: list[Path], config: Config, catalog: dict[str, Rule], *, root: Path,
             show_refuted: bool = False, verbose: bool = False, warn=None, progress=None,
             static_progress=None) -> Report:
    """Scan `paths` and return the merged Report.

    Raises breakscan.static.discovery.MissingPathError for a path that does not exist.
    `warn` is called with one-line notes for the user (e.g. dynamic pass skipped);
    `progress(n_targets)` may return a callback for the dynamic pass's progress records;
    `static_progress(n_files)` one called with the number of files finished.
    A Ctrl-C or SIGTERM during the dynamic pass stops it (breakscan.interrupt) and the report
    keeps what was collected, with `report.interrupted` set; during the static pass it raises
    KeyboardInterrupt as usual.
    """
    warn = warn or (lambda msg: print(f"breakscan: {msg}", file=sys.stderr))
    static = static_pass(paths, config, catalog, root=root, verbose=verbose, progress=static_progress)
    note = unverified_note(catalog, parse_version(static.torch_version) if static.torch_version else None)
    if note:
        warn(note)
    outcome = DynamicOutcome()
    if config.dynamic:
        skipped = notebooks_with_examples(static.files)
        if skipped:
            warn(f"dynamic pass skipped for {len(skipped)} notebook(s) defining breakscan_examples() "
                 f"({', '.join(p.name for p in skipped[:3])}{', ...' if len(skipped) > 3 else ''}): the "
                 "dynamic pass does not run notebooks; their findings are static predictions (run the "
                 "cells under `%%breakscan` in Jupyter, see README \"Jupyter notebooks\")")
        targets = dynamic_targets(static.files, config)
        if targets and not torch_importable():
            warn("dynamic pass skipped: torch is not installed in this environment (install torch, e.g. "
                 "torch==2.13.0, next to breakscan; --no-dynamic silences this)")
        elif targets:
            with catch_interrupts() as interrupt:
                outcome = run_dynamic_targets(targets, config, root, stop=interrupt,
                                              progress=progress(len(targets)) if progress else None)
            report = build_report(static, outcome, config, root=root, show_refuted=show_refuted)
            if interrupt:
                done = outcome.targets - outcome.cut_short
                report.interrupted = interruption(
                    interrupt, f"during the dynamic pass: {done} of {outcome.targets} target file(s) finished; "
                    "the findings recorded before it are kept, the rest of the pass did not run")
            return report
    return build_report(static, outcome, config, root=root, show_refuted=show_refuted)


def interruption(interrupt: Interrupt, when: str) -> Interruption:
    """The report's note for a run that `interrupt` (which holds a signal) cut short `when`."""
    return Interruption(signal=interrupt.name, exit_code=interrupt.exit_code,
                        message=f"Interrupted by {interrupt.name} {when}.")
