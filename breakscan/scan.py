"""One breakscan run: discover files, static pass, dynamic pass where asked, merge → Report."""

from __future__ import annotations

import importlib.metadata
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from breakscan import __version__
from breakscan.catalog import Rule
from breakscan.config import Config, effective_severity, parse_version, rule_selected
from breakscan.findings import EntryReport, Finding, Report
from breakscan.merge import merge
from breakscan.static.discovery import iter_python_files
from breakscan.static.engine import scan_files

_EXAMPLES_HOOK = re.compile(rb"^def breakscan_examples\s*\(", re.MULTILINE)


def installed_torch_version() -> str | None:
    """The installed torch's version string from package metadata, without importing torch."""
    try:
        return importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return None


def active_rules(catalog: dict[str, Rule], config: Config, torch_version: tuple[int, int] | None) -> list[Rule]:
    """Rules selected by the config whose pattern breaks on `torch_version`."""
    return [r for r in catalog.values()
            if rule_selected(r.id, config) and r.applies_to(torch_version) and r.match]


def dynamic_targets(files: list[Path], config: Config) -> list[tuple[Path, str | None]]:
    """(file, entry function) pairs: files defining `breakscan_examples()`, then `entries`."""
    targets: list[tuple[Path, str | None]] = []
    for path in files:
        try:
            if _EXAMPLES_HOOK.search(path.read_bytes()):
                targets.append((path, None))
        except OSError:
            continue
    for entry in config.entries:
        file, _, func = entry.rpartition(":")
        if not file or not func:
            file, func = entry, "breakscan_examples"
        targets.append((Path(file).absolute(), func))
    return targets


@dataclass
class DynamicOutcome:
    """Combined results of the dynamic pass over all targets."""

    findings: list[Finding] = field(default_factory=list)
    entries: list[EntryReport] = field(default_factory=list)
    traced: dict[str, set[int]] = field(default_factory=dict)
    device: str = ""
    ran: bool = False


def run_dynamic_targets(targets: list[tuple[Path, str | None]], config: Config, root: Path,
                        jobs: int = 2) -> DynamicOutcome:
    """Run each target in its own child process (see breakscan.dynamic.runner), `jobs` at once."""
    from breakscan.dynamic.runner import run_dynamic

    outcome = DynamicOutcome(ran=bool(targets))

    def one(target: tuple[Path, str | None]):
        path, entry = target
        return run_dynamic(path, project_root=root, entry=entry, device=config.device,
                           timeout=config.timeout, backend=config.backend)

    with ThreadPoolExecutor(max_workers=max(1, min(jobs, len(targets) or 1))) as pool:
        for result in pool.map(one, targets):
            outcome.findings.extend(result.findings)
            outcome.entries.extend(result.entries)
            for path, lines in result.traced_lines.items():
                outcome.traced.setdefault(path, set()).update(lines)
            outcome.device = outcome.device or result.device
    return outcome


def torch_importable() -> bool:
    """Whether torch can be imported here (checked without importing it)."""
    import importlib.util

    return importlib.util.find_spec("torch") is not None


def run_scan(paths: list[Path], config: Config, catalog: dict[str, Rule], *, root: Path,
             show_refuted: bool = False, verbose: bool = False, warn=None) -> Report:
    """Scan `paths` and return the merged Report.

    Raises breakscan.static.discovery.MissingPathError for a path that does not exist.
    `warn` is called with one-line notes for the user (e.g. dynamic pass skipped).
    """
    warn = warn or (lambda msg: print(f"breakscan: {msg}", file=sys.stderr))
    version_text = config.torch_version or installed_torch_version()
    torch_version = parse_version(version_text) if version_text else None
    files = list(iter_python_files(paths, root=root, exclude=config.exclude,
                                   respect_gitignore=config.respect_gitignore))
    rules = active_rules(catalog, config, torch_version)
    static = scan_files(files, rules, regions_mode=config.regions, verbose=verbose)
    outcome = DynamicOutcome()
    if config.dynamic:
        targets = dynamic_targets(files, config)
        if targets and not torch_importable():
            warn("dynamic pass skipped: torch is not installed (pip install 'breakscan[dynamic]')")
        elif targets:
            outcome = run_dynamic_targets(targets, config, root)
    findings = merge(static.findings, outcome.findings, outcome.traced)
    findings = [f.replace(severity=effective_severity(f.rule_id, f.severity, config))
                for f in findings if f.rule_id.startswith("BRK9") or rule_selected(f.rule_id, config)]
    return Report(root=root, findings=findings, files_scanned=len(static.files),
                  entries=outcome.entries, torch_version=version_text, dynamic_ran=outcome.ran,
                  device=outcome.device, show_refuted=show_refuted, tool_version=__version__)
