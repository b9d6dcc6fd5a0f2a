"""The rule catalog: one TOML file per rule under `rules/` (packaged as `breakscan/_rules`).

A rule file holds the rule's id, title, family, severity, message, rationale, fix, the Dynamo
graph-break ids it corresponds to (from torch's `graph_break_registry.json`), the torch versions
in which its pattern breaks, how the static pass matches it (`[match]`; `torch_ops` there adds the
names of the ATen ops torch tags so, from `rules/data/torch-ops.json`), and a breaking and a
fixed example. Per torch release: `[match.torch]` gives one pattern its own range,
`[[gb_ids_by_torch]]` the ids Dynamo gives the break on some releases (disjoint ranges), an
example's `torch` the releases it holds on, and `verified` the releases its examples were
confirmed on (`Rule.for_torch` resolves a rule for one release). Every example is a runnable
module with `breakscan_examples()`; the test suite confirms each with real Dynamo.
"""

from __future__ import annotations

import functools
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from breakscan.findings import Kind, Severity

FAMILIES = {
    "BRK1": "data-dependent control flow and scalar extraction",
    "BRK2": "calls Dynamo cannot trace",
    "BRK3": "side effects and mutation",
    "BRK4": "unsupported constructs",
    "BRK5": "recompile risks",
    "BRK9": "breakscan's own errors",
}
GB_SITE = "https://meta-pytorch.github.io/compile-graph-break-site/gb/{}.html"
# The `[match]` lists whose patterns may carry their own torch range in `[match.torch]`.
PATTERN_KEYS = ("calls", "tensor_methods", "logger_methods")
_ID = re.compile(r"^BRK\d{3}$")
# The test suite's `# expect: BRK101` markers on an example's breaking lines (tests/test_rule_examples.py).
_EXPECT_MARKER = re.compile(r"[ \t]*#\s*expect:\s*BRK\d{3}(?:\s*,\s*BRK\d{3})*[ \t]*$", re.MULTILINE)


class CatalogError(ValueError):
    """A rule file is malformed (missing key, bad id, bad version range)."""


@dataclass(frozen=True)
class Example:
    """A rule's example: `code` is a whole module defining `breakscan_examples()`; `torch` is the
    range of versions it holds on (an example of a pattern with its own `[match.torch]` range)."""

    code: str
    title: str = ""
    torch: str = ""

    def applies_to(self, torch_version: tuple[int, int] | None) -> bool:
        """Whether the example holds on `torch_version` (no range, or unknown version: True)."""
        return torch_version is None or not self.torch or version_in_range(torch_version, self.torch)

    @property
    def shown(self) -> str:
        """`code` as users read it (`breakscan rule`, SARIF help): without the `# expect:` test markers."""
        return _EXPECT_MARKER.sub("", self.code)


FIX_SAFETIES = ("safe", "unsafe")


@dataclass(frozen=True)
class AutoFix:
    """A rule's `[autofix]` table: which rewrite of `breakscan.fix` applies, and how safe it is.

    `safe`: behaviour outside compiled code is unchanged (`--fix`); `unsafe`: it can change
    results in some cases (`--fix --unsafe-fixes`). `description` is shown with each fix.
    """

    rewrite: str
    safety: str
    description: str


@dataclass(frozen=True)
class VersionGB:
    """A `[[gb_ids_by_torch]]` entry: the graph-break ids Dynamo gives the rule's break on the
    torch versions in `torch` (a range like `>=2.14`), where they differ from the top-level ids."""

    torch: str
    gb_ids: tuple[str, ...]


@dataclass(frozen=True)
class Rule:
    """One catalog entry; see the module docstring for the file format."""

    id: str
    name: str
    title: str
    family: str
    severity: Severity
    kind: Kind
    message: str
    rationale: str
    fix: str
    gb_ids: tuple[str, ...]
    torch_versions: str  # a version range like ">=2.1" or ">=2.1,<2.9"
    match: dict[str, Any]
    breaking: tuple[Example, ...]
    fixed: tuple[Example, ...]
    tags: tuple[str, ...] = ()
    precision: str = "high"
    limitations: str = ""
    requires: str = ""  # "cuda" when the pattern only exists on a GPU
    python_versions: str = ""  # a Python range like "<3.12" when the pattern depends on it
    verified: tuple[str, ...] = ()  # torch versions the examples were confirmed on
    autofix: AutoFix | None = None  # `[autofix]`: the rule is fixable by `--fix`
    silenced_by: tuple[str, ...] = ()  # Dynamo settings under which the pattern does not break
    gb_by_torch: tuple[VersionGB, ...] = ()  # `[[gb_ids_by_torch]]`: ids on some versions only
    source: Path | None = field(default=None, compare=False)

    @property
    def all_gb_ids(self) -> tuple[str, ...]:
        """Every graph-break id the rule's break has on any torch version (for the rule index)."""
        return tuple(dict.fromkeys([*self.gb_ids, *(g for v in self.gb_by_torch for g in v.gb_ids)]))

    def gb_ids_for(self, torch_version: tuple[int, int] | None) -> tuple[str, ...]:
        """The graph-break ids on `torch_version`: the `[[gb_ids_by_torch]]` entry whose range
        holds it (the ranges are disjoint), else the top-level `gb_ids`; unknown version: every
        id (`all_gb_ids`)."""
        if torch_version is None:
            return self.all_gb_ids
        for entry in self.gb_by_torch:
            if version_in_range(torch_version, entry.torch):
                return entry.gb_ids
        return self.gb_ids

    def pattern_applies(self, pattern: str, torch_version: tuple[int, int] | None) -> bool:
        """Whether a `[match]` pattern breaks on `torch_version` (its `[match.torch]` range, if any)."""
        spec = self.match.get("torch", {}).get(pattern)
        return torch_version is None or not spec or version_in_range(torch_version, spec)

    def for_torch(self, torch_version: tuple[int, int] | None) -> Rule | None:
        """This rule as it stands on `torch_version` (major, minor): its `[match]` lists keep only
        the patterns that break there and `gb_ids` are that version's. None when the rule's range
        excludes the version or none of its patterns is left. Unknown version: the rule unchanged.
        """
        if torch_version is None:
            return self
        if not self.applies_to(torch_version):
            return None
        match = {k: v for k, v in self.match.items() if k != "torch"}
        for key in PATTERN_KEYS:
            if key in match:
                match[key] = [p for p in match[key] if self.pattern_applies(p, torch_version)]
                if not match[key]:
                    del match[key]
        if self.match and not any(k in match for k in (*PATTERN_KEYS, "check")):
            return None
        return replace(self, match=match, gb_ids=self.gb_ids_for(torch_version), gb_by_torch=())

    def applies_to(self, torch_version: tuple[int, int] | None) -> bool:
        """True when the pattern breaks on `torch_version` (major, minor); unknown version: True."""
        if torch_version is None:
            return True
        return version_in_range(torch_version, self.torch_versions)

    def applies_to_python(self, python: tuple[int, int] | None = None) -> bool:
        """True when the pattern breaks on `python` (major, minor; default: the running one)."""
        return not self.python_versions or version_in_range(python or sys.version_info[:2], self.python_versions)

    def gb_links(self) -> list[str]:
        """Links to the graph-break site's page for each of the rule's GB ids (every version's)."""
        return [GB_SITE.format(gb.lower()) for gb in self.all_gb_ids]


def version_in_range(version: tuple[int, int], spec: str) -> bool:
    """Whether `version` satisfies a comma-separated range like `>=2.1,<2.9` (major.minor only).

    Raises CatalogError on a clause it cannot read.
    """
    for op, other in _clauses(spec):
        ok = {
            ">=": version >= other,
            "<=": version <= other,
            "==": version == other,
            "<": version < other,
            ">": version > other,
        }[op]
        if not ok:
            return False
    return True


def rules_dir() -> Path:
    """Where the rule files are: `breakscan/_rules` in a wheel, `rules/` in a source checkout."""
    packaged = Path(__file__).with_name("_rules")
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parent.parent / "rules"


def _examples(raw: Any) -> tuple[Example, ...]:
    if raw is None:
        return ()
    if isinstance(raw, str):
        return (Example(raw),)
    return tuple(Example(e["code"], e.get("title", ""), e.get("torch", "")) for e in raw)


@functools.lru_cache(maxsize=512)
def _clauses(spec: str) -> tuple[tuple[str, tuple[int, int]], ...]:
    """(operator, (major, minor)) of each clause of a range (read once: the catalog's checks ask
    about the same few ranges hundreds of times). Raises CatalogError on a clause it cannot read."""
    out = []
    for clause in filter(None, (c.strip() for c in spec.split(","))):
        m = re.fullmatch(r"(>=|<=|==|<|>)\s*(\d+)\.(\d+)", clause)
        if not m:
            raise CatalogError(f"bad torch version clause {clause!r}")
        out.append((m.group(1), (int(m.group(2)), int(m.group(3)))))
    return tuple(out)


def load_rule(path: Path) -> Rule:
    """Parse one rule file. Raises CatalogError when a required key is missing or wrong."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise CatalogError(f"{path.name}: {exc}") from exc
    try:
        rid = data["id"]
        if not _ID.match(rid):
            raise CatalogError(f"{path.name}: rule id {rid!r} is not BRKnnn")
        examples = data.get("examples", {})
        rule = Rule(
            id=rid,
            name=data["name"],
            title=data["title"],
            family=rid[:4],
            severity=Severity(data.get("severity", "warning")),
            kind=Kind(data.get("kind", "graph-break")),
            message=data["message"],
            rationale=data["rationale"].strip(),
            fix=data["fix"].strip(),
            gb_ids=tuple(data.get("gb_ids", ())),
            torch_versions=data.get("torch", ">=2.0"),
            match=_with_torch_ops(path, data.get("match", {})),
            breaking=_examples(examples.get("breaking")),
            fixed=_examples(examples.get("fixed")),
            tags=tuple(data.get("tags", ())),
            precision=data.get("precision", "high"),
            limitations=data.get("limitations", "").strip(),
            requires=data.get("requires", ""),
            python_versions=data.get("python", ""),
            verified=tuple(data.get("verified", ())),
            autofix=_autofix(path, data.get("autofix")),
            silenced_by=_silenced_by(data.get("silenced_by", ())),
            gb_by_torch=tuple(VersionGB(e["torch"], tuple(e["gb_ids"])) for e in data.get("gb_ids_by_torch", ())),
            source=path,
        )
    except KeyError as exc:
        raise CatalogError(f"{path.name}: missing key {exc.args[0]!r}") from exc
    except ValueError as exc:
        if isinstance(exc, CatalogError):
            raise
        raise CatalogError(f"{path.name}: {exc}") from exc
    version_in_range((2, 0), rule.torch_versions)  # validate the ranges now
    for spec in ([e.torch for e in rule.gb_by_torch] + list(rule.match.get("torch", {}).values())
                 + [ex.torch for ex in rule.breaking + rule.fixed if ex.torch]):
        version_in_range((2, 0), spec)
    for minor in range(0, 40):  # [[gb_ids_by_torch]] ranges are disjoint: order never matters
        if sum(version_in_range((2, minor), e.torch) for e in rule.gb_by_torch) > 1:
            raise CatalogError(f"{path.name}: [[gb_ids_by_torch]] ranges overlap at torch 2.{minor}")
    listed = {p for key in PATTERN_KEYS for p in rule.match.get(key, ())}
    unknown = set(rule.match.get("torch", {})) - listed
    if unknown:
        raise CatalogError(f"{path.name}: [match.torch] names patterns not in [match]: {sorted(unknown)}")
    for v in rule.verified:
        if not re.fullmatch(r"\d+\.\d+", v):
            raise CatalogError(f"{path.name}: verified version {v!r} is not X.Y")
    version_in_range((3, 10), rule.python_versions)
    return rule


def _silenced_by(raw: Any) -> tuple[str, ...]:
    """`silenced_by = ["capture_scalar_outputs", "callee in ignore_logging_functions"]`: the Dynamo
    settings (breakscan.static.dynamo_settings) under which the rule's pattern compiles without a
    break. Raises ValueError on an entry it cannot read."""
    from breakscan.static.dynamo_settings import check_silencer

    entries = tuple(raw)
    for entry in entries:
        check_silencer(entry)
    return entries


def _with_torch_ops(path: Path, match: dict[str, Any]) -> dict[str, Any]:
    """`[match] torch_ops = ["dynamic_output_shape"]`: add the Python names of the ATen ops torch tags so
    (`rules/data/torch-ops.json`, written by scripts/refresh_torch_data.py) to `calls` / `tensor_methods`.
    A tag's `traced_by` ({"2.15": [names]}) gives those names the `[match.torch]` range "<2.15".

    Raises CatalogError on a tag the data file does not have.
    """
    if not match.get("torch_ops"):
        return match
    tags = _torch_ops(str(path.parent / "data" / "torch-ops.json"))
    match = dict(match)
    for tag in match["torch_ops"]:
        if tag not in tags:
            raise CatalogError(f"{path.name}: torch_ops tag {tag!r} is not in rules/data/torch-ops.json")
        for key in ("calls", "tensor_methods"):
            own = list(match.get(key, ()))
            match[key] = own + [n for n in tags[tag][key] if n not in own]
        # names a newer torch traces (`stdlib_c_skipped`: its polyfills): flagged only before it
        for version, names in tags[tag].get("traced_by", {}).items():
            ranges = dict(match.get("torch", {}))
            for name in names:
                ranges.setdefault(name, f"<{version}")
            match["torch"] = ranges
    return match


@functools.lru_cache(maxsize=2)
def _torch_ops(path: str) -> dict[str, Any]:
    import json

    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))["tags"]
    except (OSError, ValueError, KeyError) as exc:
        raise CatalogError(f"cannot read {path}: {exc}") from exc


def _autofix(path: Path, raw: Any) -> AutoFix | None:
    if raw is None:
        return None
    try:
        fix = AutoFix(rewrite=raw["rewrite"], safety=raw["safety"], description=raw["description"].strip())
    except (KeyError, TypeError) as exc:
        raise CatalogError(f"{path.name}: [autofix] needs rewrite, safety and description") from exc
    if fix.safety not in FIX_SAFETIES:
        raise CatalogError(f"{path.name}: [autofix] safety must be one of {', '.join(FIX_SAFETIES)}")
    return fix


@functools.lru_cache(maxsize=4)
def load_catalog(directory: Path | None = None) -> dict[str, Rule]:
    """All rules by id, sorted. Raises CatalogError on a malformed file or a duplicate id."""
    directory = directory or rules_dir()
    rules: dict[str, Rule] = {}
    for path in sorted(directory.glob("*.toml")):
        rule = load_rule(path)
        if rule.id in rules:
            raise CatalogError(f"duplicate rule id {rule.id} in {path.name}")
        rules[rule.id] = rule
    return dict(sorted(rules.items()))


def gb_registry_entry(gb_id: str) -> dict[str, Any] | None:
    """The newest registry entry for `gb_id` from the installed torch, without importing torch.

    Returns None when torch is not installed, has no registry (before 2.8) or the id is unknown.
    Source: torch's `torch/_dynamo/graph_break_registry.json`.
    """
    path = _registry_path()
    entries = _load_registry(path).get(gb_id) if path else None
    return entries[0] if entries else None


def gb_id_for_type(gb_type: str) -> str:
    """The graph-break id the installed torch's registry gives `gb_type` (a message's type line),
    or '' (no torch, no registry, unknown type). For releases whose messages carry the type but
    no `/gb/gbNNNN.html` link. Source: `torch/_dynamo/graph_break_registry.json`, every entry
    version of every id."""
    path = _registry_path()
    return _types_to_ids(path).get(gb_type.strip(), "") if path and gb_type else ""


def gb_registry_file() -> Path | None:
    """The installed torch's `torch/_dynamo/graph_break_registry.json`, found without importing
    torch; None when torch is not installed or its version has no registry."""
    path = _registry_path()
    return Path(path) if path else None


@functools.lru_cache(maxsize=1)
def _registry_path() -> str | None:
    import importlib.util

    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return None
    for loc in (spec.submodule_search_locations or ()) if spec else ():
        reg = Path(loc) / "_dynamo" / "graph_break_registry.json"
        if reg.is_file():
            return str(reg)
    return None


@functools.lru_cache(maxsize=1)
def _types_to_ids(path: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for gb_id, entries in _load_registry(path).items():
        for entry in entries:
            out.setdefault(str(entry.get("Gb_type", "")).strip(), gb_id)
    return out


@functools.lru_cache(maxsize=1)
def _load_registry(path: str) -> dict[str, Any]:
    import json

    return json.loads(Path(path).read_text(encoding="utf-8"))
