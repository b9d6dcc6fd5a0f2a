"""The `breakscan` command line (typer). `breakscan PATHS` is `breakscan check PATHS`.

Exit codes (DESIGN.md): 0 no finding at or above `--fail-on`, 1 findings, 2 usage error,
missing path, bad config, or internal error; 130 (143) when Ctrl-C (SIGTERM) interrupted the run.
"""

from __future__ import annotations

import gc
import os
import stat
import subprocess
import sys
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import Annotated, List, Optional

import typer
from typer.core import TyperGroup

from breakscan import __version__

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class _DefaultToCheck(TyperGroup):
    """Treat `breakscan ARGS` as `breakscan check ARGS` unless ARGS starts with a command."""

    def parse_args(self, ctx, args):  # noqa: D102 (click API)
        if not args or (args[0] not in self.commands and args[0] not in ("--help", "-h", "--version")):
            args = ["check", *args]
        return super().parse_args(ctx, args)


app = typer.Typer(cls=_DefaultToCheck, add_completion=False, rich_markup_mode=None,
                  help="Find where torch.compile breaks your graph, recompiles, and why.",
                  context_settings={"help_option_names": ["-h", "--help"]})


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"breakscan {__version__}")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _main_options(
    version: bool = typer.Option(False, "--version", is_eager=True, callback=_print_version,
                                 help="Print breakscan's version and exit."),
) -> None:
    """Find where torch.compile breaks your graph, recompiles, and why."""


class Format(str, Enum):
    text = "text"
    json = "json"
    sarif = "sarif"
    github = "github"
    html = "html"


class Color(str, Enum):
    auto = "auto"
    always = "always"
    never = "never"


# Options `check` and `run` share (typer reads the Annotated metadata).
FormatOption = Annotated[Format, typer.Option("--format", "-f", help="Report format.")]
OutputOption = Annotated[Optional[Path], typer.Option("--output", "-o", help="Write the report to FILE.")]
FailOnOption = Annotated[Optional[str], typer.Option("--fail-on", help="error|warning|note (default warning).")]
ExitZeroOption = Annotated[bool, typer.Option("--exit-zero", help="Exit 0 even with findings.")]
SelectOption = Annotated[Optional[str], typer.Option(help="Comma-separated rule ids or prefixes (BRK1, ALL).")]
IgnoreOption = Annotated[Optional[str], typer.Option(help="Comma-separated rule ids or prefixes to skip.")]
ShowRefutedOption = Annotated[bool, typer.Option("--show-refuted", help="Show predictions Dynamo refuted.")]
RootOption = Annotated[Optional[Path], typer.Option(help="Root for relative paths (default: git top level).")]
ConfigOption = Annotated[Optional[Path], typer.Option("--config", help="pyproject.toml to read.")]
ColorOption = Annotated[Color, typer.Option(help="auto|always|never (NO_COLOR is honoured).")]
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="Print findings only, no summary.")]
VerboseOption = Annotated[bool, typer.Option("--verbose", "-v",
                                             help="Findings in libraries in full; tracebacks for internal errors.")]


def fail(message: str) -> "typer.Exit":
    """Print a one-line error to stderr and return the exit to raise (status 2)."""
    typer.echo(f"breakscan: error: {message}", err=True)
    return typer.Exit(EXIT_ERROR)


def git_root(start: Path) -> Path | None:
    """The git top level containing `start`, or None outside a repository."""
    try:
        out = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=start, capture_output=True,
                             text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return Path(out.stdout.strip()) if out.returncode == 0 and out.stdout.strip() else None


def current_umask() -> int:
    """The process's file-mode creation mask (read by setting it and setting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` via a temporary file in the same directory and a rename.

    The file gets the mode `open()` would give it: an existing file's own mode, else
    0o666 minus the umask (mkstemp creates the temporary file 0o600).
    """
    import tempfile

    path = path.absolute()
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except OSError:
        mode = 0o666 & ~current_umask()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def make_console(color: Color, file=None):
    """A rich Console honouring `--color` and NO_COLOR; plain when not a terminal."""
    from rich.console import Console

    no_color = color is Color.never or (color is Color.auto and bool(os.environ.get("NO_COLOR")))
    force = True if color is Color.always else None
    # NO_COLOR / --color never: no escape codes at all (bold and underline included), even when
    # FORCE_COLOR or a terminal would otherwise turn styling on.
    return Console(file=file, force_terminal=force, no_color=no_color, highlight=False,
                   color_system=None if no_color else "auto", emoji=False, soft_wrap=False)


@app.command("check")
def check(
    paths: List[Path] = typer.Argument(None, help="Files or directories to scan (default: .)."),
    output_format: FormatOption = Format.text,
    output: OutputOption = None,
    select: SelectOption = None,
    ignore: IgnoreOption = None,
    fail_on: FailOnOption = None,
    exit_zero: ExitZeroOption = False,
    no_dynamic: bool = typer.Option(False, "--no-dynamic", help="Static pass only; never run code."),
    entry: Optional[List[str]] = typer.Option(None, "--entry", help="FILE:FUNC giving examples to run (repeatable)."),
    device: Optional[str] = typer.Option(None, help="auto|cpu|cuda for the dynamic pass."),
    timeout: Optional[float] = typer.Option(None, help="Dynamic-pass time limit per file, seconds."),
    backend: Optional[str] = typer.Option(None, help="torch.compile backend (default eager)."),
    torch_version: Optional[str] = typer.Option(None, "--torch-version", help="Target torch X.Y."),
    regions: Optional[str] = typer.Option(None, help="explicit|modules: where compile regions start."),
    show_refuted: ShowRefutedOption = False,
    root: RootOption = None,
    config_file: ConfigOption = None,
    color: ColorOption = Color.auto,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
    baseline: Optional[Path] = typer.Option(None, "--baseline", help="Hide findings recorded in this baseline file."),
    write_baseline: Optional[Path] = typer.Option(None, "--write-baseline",
                                                  help="Record every current finding in FILE and exit 0."),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", help="Static-pass processes (default: CPU count)."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Neither read nor write the result cache."),
    fix: bool = typer.Option(False, "--fix", help="Apply safe rewrites in place, then report what remains."),
    diff: bool = typer.Option(False, "--diff", help="Print the rewrites --fix would make as a diff; change nothing."),
    unsafe_fixes: bool = typer.Option(False, "--unsafe-fixes", help="With --fix/--diff: unsafe rewrites too."),
) -> None:
    """Scan PATHS: static pass, plus the dynamic pass for files defining breakscan_examples()."""
    from breakscan.catalog import CatalogError, load_catalog
    from breakscan.config import ConfigError, find_pyproject, load_config
    from breakscan.findings import Severity
    from breakscan.scan import run_scan
    from breakscan.static.discovery import MissingPathError

    paths = paths or [Path(".")]
    try:
        catalog = load_catalog()
        config = load_config(config_file if config_file else find_pyproject(Path.cwd()))
        _apply_flags(config, select, ignore, fail_on, no_dynamic, entry, device, timeout, backend,
                     torch_version, regions)
        if jobs is not None:
            config.jobs = jobs
        if no_cache:
            config.cache = False
        config.validate(catalog)
    except (ConfigError, CatalogError) as exc:
        raise fail(str(exc))
    for p in paths:
        if not p.exists() and not p.is_symlink():
            raise fail(f"path does not exist: {p}")
    known = _load_baseline(baseline)
    scan_root = (root or git_root(Path.cwd()) or Path.cwd()).absolute()
    fixed = _fix_or_diff(paths, config, catalog, scan_root, fix, diff, unsafe_fixes, known, verbose)
    try:
        with dynamic_progress(output_format is Format.text and not quiet) as progress:
            report = run_scan(paths, config, catalog, root=scan_root, show_refuted=show_refuted,
                              verbose=verbose, progress=progress,
                              static_progress=static_progress(output_format is Format.text and not quiet))
    except MissingPathError as exc:
        raise fail(f"path does not exist: {exc}")
    except Exception as exc:  # breakscan's own bug: exit 2, never a silent pass
        if verbose:
            raise
        raise fail(f"internal error: {type(exc).__name__}: {exc}")
    if write_baseline is not None:
        from breakscan import baseline as baselines

        write_atomic(write_baseline, baselines.dumps(report))
        if not quiet:
            typer.echo(f"breakscan: wrote {len(report.findings)} finding(s) to baseline {write_baseline}", err=True)
        raise typer.Exit(EXIT_OK)
    if known is not None:
        from breakscan import baseline as baselines

        applied = baselines.apply(report, known)
        report.findings, report.baselined = applied.kept, applied.hidden
    if report.files_scanned == 0 and not report.findings and not fixed:
        # As ruff does: a warning and exit 0 (an empty tree is not an error; a CI glob may match nothing).
        typer.echo("breakscan: warning: No Python files found under the given path(s)", err=True)
        if output_format is Format.text and output is None:
            raise typer.Exit(EXIT_OK)
    _attach_fixes(report, catalog, fixed, verbose, output_format, quiet, cache=config.cache)
    _emit(report, catalog, output_format, output, color, quiet, verbose)
    _exit_if_interrupted(report, output_format, output, quiet)
    threshold = Severity(config.fail_on).rank
    failing = [f for f in report.visible() if f.severity.rank >= threshold and f.status.value != "refuted"]
    raise typer.Exit(EXIT_FINDINGS if failing and not exit_zero else EXIT_OK)


def _fix_or_diff(paths, config, catalog, root: Path, fix: bool, diff: bool, unsafe: bool,
                 known: set[str] | None, verbose: bool) -> list:
    """`--diff`: print the diff and exit (1 when there is one). `--fix`: rewrite the files and
    return the findings fixed (the scan that follows reports what remains)."""
    if not (fix or diff):
        return []
    from breakscan.fix import unified_diff
    from breakscan.fix.run import diff_paths, fix_paths

    try:
        outcome = (diff_paths if diff else fix_paths)(paths, config, catalog, root=root, unsafe=unsafe, known=known)
    except Exception as exc:  # breakscan's own bug: exit 2, never a half-told story
        if verbose:
            raise
        raise fail(f"internal error while fixing: {type(exc).__name__}: {exc}")
    if diff:
        for change in sorted(outcome.files.values(), key=lambda c: str(c.path)):
            sys.stdout.write(unified_diff(change, root))
        typer.echo(f"breakscan: {len(outcome.fixed)} fix(es) in {len(outcome.files)} file(s) would be applied",
                   err=True)
        raise typer.Exit(EXIT_FINDINGS if outcome.files else EXIT_OK)
    return outcome.fixed


def _attach_fixes(report, catalog, fixed: list, verbose: bool, output_format: "Format",
                  quiet: bool = False, cache: bool = False) -> None:
    """Give fixable findings their rewrite (terminal `[*]`, SARIF `fixes`, HTML: the formats that show
    them); record `--fix`'s work. `--quiet` text (the pre-commit hook) skips it: working out
    rewrites resolves libcst positions, which costs more than the scan of a small commit.
    A run cut short by Ctrl-C skips them too (the user asked to stop). With `cache`, rewrites of unchanged files come from the result cache (no libcst)."""
    report.fixed = fixed
    if output_format not in (Format.text, Format.sarif, Format.html) or (quiet and output_format is Format.text):
        return
    if report.interrupted is not None:  # Ctrl-C asked for a prompt stop: report what was found, without rewrites
        return
    from breakscan.fix import attach_rewrites
    from breakscan.static.cache import Cache

    try:
        report.findings = attach_rewrites(report.findings, catalog, [*report.findings, *report.suppressed],
                                          cache=Cache() if cache else None)
    except Exception:  # fixes are an extra: the report stands without them
        if verbose:
            raise


STATIC_PROGRESS_MIN_FILES = 300


def static_progress(enabled: bool):
    """A factory for `run_scan(static_progress=...)`: a transient rich bar on stderr while the
    static pass checks files, only for more than STATIC_PROGRESS_MIN_FILES files on a terminal."""
    if not (enabled and sys.stdout.isatty() and sys.stderr.isatty()):
        return None

    def factory(n_files: int):
        if n_files <= STATIC_PROGRESS_MIN_FILES:
            return None
        from rich.console import Console
        from rich.progress import Progress

        return _StaticBar(Progress(console=Console(stderr=True), transient=True))

    return factory


class _StaticBar:
    """Counts files checked; `close()` removes the bar (scan.static_pass calls it)."""

    def __init__(self, bar) -> None:
        self.bar = bar
        bar.start()
        self.task = bar.add_task("static pass: files checked", total=None)

    def __call__(self, n: int) -> None:
        self.bar.advance(self.task, n)

    def close(self) -> None:
        self.bar.stop()


@contextmanager
def dynamic_progress(enabled: bool):
    """A progress factory for `run_scan`: a transient rich bar on stderr over the dynamic pass's
    targets (with a count of entries done), only for several targets and when both stdout and
    stderr are terminals. Yields None when disabled."""
    if not (enabled and sys.stdout.isatty() and sys.stderr.isatty()):
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   console=Console(stderr=True), transient=True)

    def factory(n_targets: int):
        if n_targets < 2:
            return None
        bar.start()
        task = bar.add_task("dynamic pass", total=n_targets)
        done = [0]

        def on_record(rec: dict) -> None:
            if rec.get("type") == "entry_end":
                done[0] += 1
                bar.update(task, description=f"dynamic pass: {done[0]} entries done")
            elif rec.get("type") == "done":
                bar.advance(task)

        return on_record

    try:
        yield factory
    finally:
        bar.stop()


def _load_baseline(path: Path | None) -> set[str] | None:
    """The fingerprints in the `--baseline` file; a missing or malformed file is exit 2."""
    if path is None:
        return None
    from breakscan.baseline import BaselineError, load

    try:
        return load(path)
    except BaselineError as exc:
        raise fail(str(exc))


def _apply_flags(config, select, ignore, fail_on, no_dynamic, entry, device, timeout, backend,
                 torch_version, regions) -> None:
    def split(text: str) -> list[str]:
        return [s.strip() for s in text.split(",") if s.strip()]

    if select:  # a selection on the command line replaces the config's select and ignore
        config.select = split(select)
        config.ignore = []
    if ignore:
        config.ignore = config.ignore + split(ignore)
    for name, value in (("fail_on", fail_on), ("device", device), ("timeout", timeout),
                        ("backend", backend), ("torch_version", torch_version), ("regions", regions)):
        if value is not None:
            setattr(config, name, value)
    if entry:  # replaces the config's entries; relative to the working directory
        config.entries, config.entries_base = list(entry), Path.cwd()
    if no_dynamic:
        config.dynamic = False


def _emit(report, catalog, output_format: Format, output: Path | None, color: Color, quiet: bool,
          verbose: bool = False) -> None:
    from breakscan.notebook import report_in_cells
    from breakscan.report import renderer

    report_in_cells(report)  # notebooks: lines counted in their cells from here on
    if output_format is Format.text and output is None:
        from breakscan.report.terminal import print_report

        console = make_console(color)
        print_report(report, catalog, console, quiet=quiet, verbose=verbose)
        return
    report.command = ("breakscan", *(_relative_word(word, report.root) for word in sys.argv[1:]))
    text = renderer(output_format.value)(report, catalog)
    if output is not None:
        write_atomic(output, text if text.endswith("\n") else text + "\n")
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")


@app.command("run", context_settings={"allow_interspersed_args": False, "ignore_unknown_options": True,
                                      "allow_extra_args": True})
def run_command(
    ctx: typer.Context,
    script: Optional[str] = typer.Argument(None, help="The program to run (then its arguments)."),
    module: Optional[str] = typer.Option(None, "-m", help="Run a module as `python -m MODULE` does."),
    output_format: FormatOption = Format.text,
    output: OutputOption = None,
    fail_on: FailOnOption = None,
    exit_zero: ExitZeroOption = False,
    timeout: Optional[float] = typer.Option(None, help="Time limit for the program, seconds (default 300)."),
    backend: Optional[str] = typer.Option(None, help="Replace every torch.compile backend (e.g. eager)."),
    device: Optional[str] = typer.Option(None, help="auto|cpu|cuda (reported; the program picks its own)."),
    select: SelectOption = None,
    ignore: IgnoreOption = None,
    show_refuted: ShowRefutedOption = False,
    root: RootOption = None,
    config_file: ConfigOption = None,
    color: ColorOption = Color.auto,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
    nproc_per_node: Optional[int] = typer.Option(
        None, "--nproc-per-node", min=1,
        help="Launch N ranks per node with torch.distributed's launcher (torchrun) and merge their findings."),
    nnodes: Optional[str] = typer.Option(None, "--nnodes", help="torchrun's --nnodes (N or MIN:MAX)."),
    node_rank: Optional[int] = typer.Option(None, "--node-rank", help="torchrun's --node-rank."),
    rdzv_endpoint: Optional[str] = typer.Option(None, "--rdzv-endpoint",
                                                help="torchrun's --rdzv-endpoint HOST:PORT (several nodes)."),
    rdzv_id: Optional[str] = typer.Option(None, "--rdzv-id", help="torchrun's --rdzv-id (several nodes)."),
) -> None:
    """Run SCRIPT [ARGS...] (or -m MODULE [ARGS...]) unchanged and report every compiled region.

    The program's output passes through; breakscan's report follows it (or goes to -o). The
    static pass covers the program's own files (the script's directory or the module's package).
    With --nproc-per-node, torchrun's machinery runs it on every rank; each finding says which
    ranks saw it, and BRK520 reports what some ranks did but not all.
    """
    from breakscan.catalog import CatalogError, load_catalog
    from breakscan.config import ConfigError, find_pyproject, load_config
    from breakscan.findings import Severity

    argv = list(ctx.args)
    if module and script:
        argv.insert(0, script)
        script = None
    if bool(module) == bool(script):
        raise fail("give a SCRIPT or -m MODULE (not both)")
    try:
        catalog = load_catalog()
        config = load_config(config_file if config_file else find_pyproject(Path.cwd()))
        _apply_flags(config, select, ignore, fail_on, False, None, device, timeout, None, None, None)
        config.validate(catalog)
    except (ConfigError, CatalogError) as exc:
        raise fail(str(exc))
    from breakscan.dynamic.runner import module_path

    main_path = Path(script).absolute() if script else None
    if script and not main_path.is_file():
        raise fail(f"path does not exist: {script}")
    if module:
        found = module_path(module, Path.cwd())
        main_path = Path(found).absolute() if found else None
    own = ([main_path.parent] if main_path else [])
    scan_root = (root or (git_root(own[0]) if own else None) or (own[0] if own else Path.cwd())).absolute()
    launch = None
    if nproc_per_node is not None or nnodes or rdzv_endpoint:
        from breakscan.dynamic.multirank import torchrun_args

        launch = torchrun_args(nproc_per_node or 1, nnodes, node_rank, rdzv_endpoint, rdzv_id)
    try:
        report, code = _run_program(script, module, argv, own, config, catalog, scan_root, backend,
                                    show_refuted, verbose, launch)
    except Exception as exc:  # breakscan's own bug: exit 2, never a silent pass
        if verbose:
            raise
        raise fail(f"internal error: {type(exc).__name__}: {exc}")
    report.program_exit = code  # type: ignore[attr-defined]
    if not quiet:
        shown = "killed on timeout" if code is None else f"exited with status {code}"
        if code is not None and code < 0:
            shown = f"was killed by {_signal_name(-code)}"
        typer.echo(f"breakscan: {script or '-m ' + module} {shown}", err=True)
    _attach_fixes(report, catalog, [], verbose, output_format, quiet, cache=config.cache)
    _emit(report, catalog, output_format, output, color, quiet, verbose)
    _exit_if_interrupted(report, output_format, output, quiet)
    threshold = Severity(config.fail_on).rank
    failing = [f for f in report.visible() if f.severity.rank >= threshold and f.status.value != "refuted"]
    raise typer.Exit(EXIT_FINDINGS if failing and not exit_zero else EXIT_OK)


def _exit_if_interrupted(report, output_format: Format, output: Path | None, quiet: bool) -> None:
    """After the report of a run Ctrl-C/SIGTERM cut short: say so on stderr (unless the text
    summary just did) and exit 128 + the signal's number, whatever the findings."""
    if report.interrupted is None:
        return
    if output_format is not Format.text or output is not None or quiet:
        typer.echo(f"breakscan: {report.interrupted.message}", err=True)
    raise typer.Exit(report.interrupted.exit_code)


def _run_program(script, module, argv, own, config, catalog, scan_root, backend, show_refuted, verbose,
                 launch=None):
    """Static pass over the program's own files, then the program under the capture; merged.

    `launch`: torchrun's options (multirank.torchrun_args) to run it on several ranks."""
    from breakscan.dynamic.multirank import run_ranks
    from breakscan.dynamic.runner import run_program
    from breakscan.interrupt import catch_interrupts
    from breakscan.scan import DynamicOutcome, build_report, interruption, merge_dynamic, static_pass

    static = static_pass(own, config, catalog, root=scan_root, verbose=verbose)
    with catch_interrupts() as interrupt:
        kwargs = dict(script=script, module=module, argv=argv, cwd=Path.cwd(), project_root=scan_root,
                      device=config.device, timeout=config.timeout, backend=backend, stop=interrupt,
                      dynamo_config=config.dynamo_config)
        result, code = run_ranks(torchrun=launch, **kwargs) if launch else run_program(**kwargs)
    outcome = DynamicOutcome()
    merge_dynamic(outcome, result)
    report = build_report(static, outcome, config, root=scan_root, show_refuted=show_refuted)
    if interrupt:
        report.interrupted = interruption(
            interrupt, "while the program ran (the signal was forwarded to it): the findings are those "
            "of the compiled regions it ran before it ended")
    return report, code


@app.command("rules")
def rules_command(
    output_format: str = typer.Option("text", "--format", "-f", help="text|json"),
) -> None:
    """List every rule: id, family, severity, GB ids, title."""
    import json

    from breakscan.catalog import load_catalog

    catalog = load_catalog()
    if output_format == "json":
        typer.echo(json.dumps([
            {"id": r.id, "name": r.name, "title": r.title, "family": r.family,
             "severity": r.severity.value, "kind": r.kind.value, "gb_ids": list(r.all_gb_ids),
             "torch": r.torch_versions, "python": r.python_versions or None, "fix": r.fix} for r in catalog.values()], indent=2))
        return
    if output_format != "text":
        raise fail("--format must be text or json")
    from rich.table import Table

    table = Table("id", "name", "severity", "GB ids", "title", box=None)
    for r in catalog.values():
        table.add_row(r.id, r.name, r.severity.value, ",".join(r.all_gb_ids), r.title)
    make_console(Color.auto).print(table)


@app.command("rule")
def rule_command(rule_id: str = typer.Argument(..., help="A rule id (BRK102) or a graph-break id (GB0124).")) -> None:
    """Explain one rule: rationale, fix, examples and graph-break site links.

    A Dynamo graph-break id (the rule id of a break no breakscan rule predicted) is described
    from the installed torch's graph-break registry.
    """
    from rich.markdown import Markdown

    from breakscan.catalog import load_catalog
    from breakscan.report.ruleinfo import GB_ID
    from breakscan.report.sarif_rules import rule_help_markdown

    catalog = load_catalog()
    key = rule_id.strip().upper()
    rule = catalog.get(key)
    if rule is not None:
        text = rule_help_markdown(rule)
    elif GB_ID.match(key):
        text = gb_id_markdown(key, catalog)
    else:
        raise fail(f"unknown rule id {rule_id!r} (see `breakscan rules`)")
    from breakscan.report.terminal import Trimmed

    make_console(Color.auto).print(Trimmed(Markdown(text)))


def gb_id_markdown(gb_id: str, catalog: dict) -> str:
    """`breakscan rule GBnnnn`: the registry entry of the installed torch (title, explanation,
    hints, link) and the catalog rules that predict the break. Without torch, says so and
    gives what needs no torch. Raises typer.Exit(2) for an id the installed registry lacks."""
    from breakscan.catalog import gb_registry_entry, gb_registry_file
    from breakscan.report.sarif_rules import gb_help_markdown
    from breakscan.scan import installed_torch_version

    predicting = [r for r in catalog.values() if gb_id in r.gb_ids]
    rules = "\n".join(f"- `{r.id}` {r.title}" for r in predicting)
    rules_part = f"Predicted by breakscan rules:\n\n{rules}" if rules else "No breakscan rule predicts it yet."
    registry = gb_registry_file()
    if registry is None:
        why = "torch is not installed" if installed_torch_version() is None else (
            f"torch {installed_torch_version()} has no graph-break registry")
        return "\n\n".join([
            f"**{gb_id}: a Dynamo graph-break id**",
            f"breakscan describes graph-break ids from torch's graph-break registry, and {why} here "
            "(`pip install 'breakscan[dynamic]'`).",
            rules_part,
            f"[{gb_id} on the graph-break site]({gb_link_of(gb_id)})",
        ])
    entry = gb_registry_entry(gb_id)
    if entry is None:
        raise fail(f"unknown graph-break id {gb_id!r}: not in the graph-break registry of torch "
                   f"{installed_torch_version()} (see {gb_link_of(gb_id)})")
    source = f"From the graph-break registry of torch {installed_torch_version()}."
    return "\n\n".join([f"**{gb_id}: {entry.get('Gb_type') or 'Dynamo graph break'}**", source,
                        gb_help_markdown(gb_id, entry, rules_part)])


def gb_link_of(gb_id: str) -> str:
    """The graph-break site's page for `gb_id`."""
    from breakscan.report.ruleinfo import gb_link

    return gb_link(gb_id)


@app.command("version")
def version_command() -> None:
    """Print breakscan's version."""
    typer.echo(f"breakscan {__version__}")


@app.command("server")
def server_command(
    stdio: bool = typer.Option(True, "--stdio", help="Talk LSP on stdin/stdout (the only transport)."),
) -> None:
    """Run the Language Server on stdio: static-pass diagnostics, quick fixes and hovers in editors."""
    try:
        import lsprotocol  # noqa: F401
        import pygls  # noqa: F401
    except ImportError:
        raise fail("`breakscan server` needs pygls: pip install 'breakscan[lsp]'")
    from breakscan.lsp import serve

    gc.set_threshold(*DEFAULT_GC_THRESHOLDS)  # a server lives for hours: collect cycles as CPython does
    serve()


def _signal_name(signum: int) -> str:
    import signal

    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


# Cyclic-GC thresholds for a run (CPython's default: 700, 10, 10). A run allocates millions of
# objects that reference counting frees (parse trees are acyclic), and the default collects the
# young generations every 700 allocations and walks the whole heap (libcst's node classes, the
# trees) every 70,000: about 5% of a one-file run, 0.02 CPU s (README "Speed").
RUN_GC_THRESHOLDS = (50_000, 50, 100)
DEFAULT_GC_THRESHOLDS = gc.get_threshold()  # the interpreter's own, read before main() sets ours


def _relative_word(word: str, root: Path) -> str:
    """A command-line word with an absolute path at or under `root` (alone, or after `--opt=`)
    written relative to it, as every path in a report is: reports are shared (SARIF uploaded
    to GitHub) and must not carry the machine's directories."""
    prefix, _, value = word.rpartition("=") if word.startswith("-") and "=" in word else ("", "", word)
    if not os.path.isabs(value):
        return word
    try:
        rel = Path(value).resolve().relative_to(root.resolve())
    except (ValueError, OSError):
        return word
    return f"{prefix}={rel.as_posix()}" if prefix else rel.as_posix()


def _exit_interrupted() -> None:
    """End the process now with status 130, after a Ctrl-C that ended the command.

    Not through the interpreter's normal exit: that joins every pool thread and child process
    still alive (a stuck one would hang the Ctrl-C), and CPython 3.11 turns the status into death
    by SIGINT (-2, no report of 130) when the interrupt landed in code run by `exec`, such as a
    dataclass being created while a module imports (measured: 4 of 30 Ctrl-Cs aimed between
    the static pass's two phases). Output already written is flushed first; nothing else is pending then
    (reports and the result cache are written before a command returns).
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # closed or broken pipe: nothing more to keep
            pass
    os._exit(130)


def _after_interrupt(exc: BaseException) -> bool:
    """Whether a KeyboardInterrupt is among the exceptions `exc` was raised from or while handling."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def main() -> None:
    """Console-script entry point (`breakscan`, `python -m breakscan`).

    Exits with the command's status (the module docstring); 130 on a Ctrl-C typer did not handle.
    """
    gc.set_threshold(*RUN_GC_THRESHOLDS)
    try:
        app(prog_name="breakscan")
    except SystemExit as done:
        if _after_interrupt(done):  # typer turns a KeyboardInterrupt into exit 130
            _exit_interrupted()
        raise
    except KeyboardInterrupt:
        _exit_interrupted()
    finally:
        # The process ends here: the interpreter's exit would otherwise collect and free every
        # object in a reference cycle one by one (each class, each module's functions), about
        # 0.05 CPU s of a one-file run. Frozen objects are left to the OS. atexit handlers still
        # run; the result cache and written files are closed before this (Cache.save, write_atomic).
        gc.freeze()
