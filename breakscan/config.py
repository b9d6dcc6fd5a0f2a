"""`[tool.breakscan]` in pyproject.toml, merged with command-line flags (flags win)."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from breakscan.catalog import Rule
from breakscan.dynamic.entries import Entry, EntryError, check_entry, parse_entry
from breakscan.findings import Severity


class ConfigError(ValueError):
    """A bad config value or unknown rule id; the CLI exits with status 2."""


@dataclass
class Config:
    """Effective settings. `select`/`ignore` hold rule ids or prefixes (`BRK1`, `ALL`, `GB`)."""

    select: list[str] = field(default_factory=lambda: ["ALL"])
    ignore: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    severity: dict[str, str] = field(default_factory=dict)  # rule id -> error|warning|note
    regions: str = "modules"
    entries: list[str] = field(default_factory=list)  # FILE:FUNC dynamic entries
    # Not a key: the directory `entries` are relative to (the pyproject's; the working
    # directory for --entry). None: the working directory.
    entries_base: Path | None = None
    fail_on: str = "warning"
    torch_version: str | None = None
    respect_gitignore: bool = True
    dynamic: bool = True
    timeout: float = 300.0
    device: str = "auto"
    backend: str = "eager"
    jobs: int = 0  # static-pass worker processes; 0: one per CPU
    cache: bool = True
    dynamo_config: dict = field(default_factory=dict)  # Dynamo settings applied outside the code

    _CHOICES = {
        "regions": ("modules", "explicit"),
        "fail_on": ("error", "warning", "note"),
        "device": ("auto", "cpu", "cuda"),
    }

    def validate(self, catalog: dict[str, Rule]) -> None:
        """Raise ConfigError for an unknown choice, severity or rule id/prefix."""
        for name, choices in self._CHOICES.items():
            if getattr(self, name) not in choices:
                raise ConfigError(f"{name.replace('_', '-')} must be one of {', '.join(choices)}, "
                                  f"not {getattr(self, name)!r}")
        for rule_id, level in self.severity.items():
            if level not in ("error", "warning", "note"):
                raise ConfigError(f"severity of {rule_id} must be error, warning or note, not {level!r}")
            check_rule_selector(rule_id, catalog)
        for selector in [*self.select, *self.ignore]:
            check_rule_selector(selector, catalog)
        if self.torch_version is not None:
            parse_version(self.torch_version)
        if self.jobs < 0:
            raise ConfigError("jobs must be 0 (one per CPU) or a positive number")
        if self.timeout <= 0:
            raise ConfigError("timeout must be a positive number of seconds")
        for entry in self.resolved_entries():
            try:
                check_entry(entry)
            except EntryError as exc:
                raise ConfigError(str(exc)) from exc

    def resolved_entries(self) -> list[Entry]:
        """`entries` as absolute files and function names (see breakscan.dynamic.entries)."""
        base = self.entries_base or Path.cwd()
        return [parse_entry(text, base) for text in self.entries]


def check_rule_selector(selector: str, catalog: dict[str, Rule]) -> None:
    """Raise ConfigError unless `selector` is ALL, a GB id/prefix, or a rule id/prefix in `catalog`."""
    s = selector.upper()
    if s == "ALL" or s.startswith("GB") or any(rid.startswith(s) for rid in catalog):
        return
    raise ConfigError(f"unknown rule id or prefix {selector!r} (see `breakscan rules`)")


def parse_version(text: str) -> tuple[int, int]:
    """`"2.13"` or `"2.13.0+cpu"` → (2, 13). Raises ConfigError on anything else."""
    parts = text.strip().split("+")[0].split(".")
    try:
        return int(parts[0]), int(parts[1])
    except (IndexError, ValueError) as exc:
        raise ConfigError(f"torch version must look like 2.13, not {text!r}") from exc


def rule_selected(rule_id: str, config: Config) -> bool:
    """ruff semantics: the longest matching prefix between select and ignore wins."""
    rid = rule_id.upper()

    def best(selectors: list[str]) -> int:
        lengths = [0 if s.upper() == "ALL" else len(s) for s in selectors
                   if s.upper() == "ALL" or rid.startswith(s.upper())]
        return max(lengths, default=-1)

    sel, ign = best(config.select), best(config.ignore)
    return sel >= 0 and sel > ign if ign >= 0 else sel >= 0


def effective_severity(rule_id: str, default: Severity, config: Config) -> Severity:
    """The configured severity for `rule_id`, else `default`."""
    level = config.severity.get(rule_id)
    return Severity(level) if level else default


def find_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml at or above `start`."""
    start = start if start.is_dir() else start.parent
    for directory in [start, *start.parents]:
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


_NOT_KEYS = {"entries_base"}  # set by load_config and the CLI, not in pyproject
_KEYS = {f.name.replace("_", "-"): f.name for f in fields(Config) if not f.name.startswith("_")
         and f.name not in _NOT_KEYS}


def _dynamo_table(pyproject: Path, value: Any) -> dict[str, Any]:
    """`dynamo-config = { capture_scalar_outputs = true, ignore_logging_functions = ["print"] }`,
    checked against the installed torch's Dynamo settings. Raises ConfigError."""
    from breakscan.static.dynamo_settings import SettingError, check_table

    if not isinstance(value, dict):
        raise ConfigError(f"{pyproject}: [tool.breakscan] dynamo-config must be a table")
    try:
        return check_table(value)
    except SettingError as exc:
        raise ConfigError(f"{pyproject}: {exc}") from exc


def load_config(pyproject: Path | None) -> Config:
    """Read `[tool.breakscan]`; a missing file or table gives defaults. Raises ConfigError."""
    config = Config()
    if pyproject is None:
        return config
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{pyproject}: {exc}") from exc
    table: dict[str, Any] = data.get("tool", {}).get("breakscan", {})
    for key, value in table.items():
        attr = _KEYS.get(key) or _KEYS.get(key.replace("_", "-"))
        if attr is None:
            raise ConfigError(f"{pyproject}: unknown [tool.breakscan] key {key!r}")
        if attr == "dynamo_config":
            config.dynamo_config = _dynamo_table(pyproject, value)
            continue
        expected = type(getattr(config, attr))
        if attr == "torch_version":
            expected = str
        if attr == "timeout" and isinstance(value, int):
            value = float(value)
        if not isinstance(value, expected):
            raise ConfigError(f"{pyproject}: [tool.breakscan] {key} must be {expected.__name__}")
        if isinstance(value, list) and not all(isinstance(item, str) for item in value):
            raise ConfigError(f"{pyproject}: [tool.breakscan] {key} must be a list of strings")
        setattr(config, attr, value)
    if "entries" in table:
        config.entries_base = pyproject.parent.absolute()
    return config
