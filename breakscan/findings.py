"""The one Finding type that flows from both passes through merge to every reporter."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any


class Kind(str, Enum):
    """What a finding is (DESIGN.md, "Findings and merge")."""

    GRAPH_BREAK = "graph-break"
    FRAME_FALLBACK = "frame-fallback"
    RECOMPILE = "recompile"
    GUARD_FAILURE = "guard-failure"
    ERROR = "error"


class Status(str, Enum):
    """How a finding is known: by the static pass, by Dynamo, or both."""

    CONFIRMED = "confirmed"  # predicted statically and observed by Dynamo on the same line
    PREDICTED = "predicted"  # static only: not executed, or no dynamic pass
    OBSERVED = "observed"  # Dynamo only: a static-rule gap
    REFUTED = "refuted"  # predicted, but Dynamo traced the line without breaking


class Severity(str, Enum):
    """SARIF result levels (SARIF 2.1.0 §3.27.10), ordered by `rank`."""

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"

    @property
    def rank(self) -> int:
        """2 for error, 1 for warning, 0 for note: compare against `--fail-on`."""
        return {"error": 2, "warning": 1, "note": 0}[self.value]


@dataclass(frozen=True)
class Frame:
    """One frame of a user stack: `path` absolute, `line` 1-based, `column` 1-based or None."""

    path: str
    line: int
    function: str = ""
    column: int | None = None


@dataclass(frozen=True)
class Edit:
    """Replace the text from (`line`, `column`) up to (`end_line`, `end_column`) by `text`.

    1-based lines and code-point columns, end exclusive (as in Finding); an empty range inserts.
    """

    line: int
    column: int
    end_line: int
    end_column: int
    text: str


@dataclass(frozen=True)
class Rewrite:
    """A fix breakscan can apply (`--fix`): non-overlapping edits of the finding's file.

    `safety` is `safe` (behaviour outside compiled code unchanged) or `unsafe` (needs
    `--unsafe-fixes`); `description` says what the edit does, for the report and SARIF.
    """

    description: str
    safety: str
    edits: tuple[Edit, ...]


@dataclass(frozen=True)
class Finding:
    """A graph break, fallback, recompile, guard failure or error at one source location.

    Lines and columns are 1-based; `end_column` is exclusive; columns count Unicode code points (reporters convert,
    e.g. SARIF to UTF-16 code units). `path` is absolute. `gb_ids` are Dynamo graph-break
    ids (`GB0170`) from torch's `graph_break_registry.json`. `stack` is the user stack,
    innermost frame last (from Dynamo's `User code traceback`).
    """

    rule_id: str
    kind: Kind
    path: str
    line: int
    message: str
    column: int = 1
    end_line: int | None = None
    end_column: int | None = None
    severity: Severity = Severity.WARNING
    status: Status = Status.PREDICTED
    fix: str = ""
    gb_ids: tuple[str, ...] = ()
    explanation: str = ""
    hints: tuple[str, ...] = ()
    stack: tuple[Frame, ...] = ()
    chain: tuple[str, ...] = ()  # compile-region chain from its root, e.g. ("Model.forward", "helper")
    entry: str = ""  # the dynamic entry that observed it
    code: str = ""  # the flagged source text, for messages
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    rewrite: Rewrite | None = field(default=None, compare=False, hash=False)  # see breakscan.fix
    # Notebooks (breakscan.notebook): the 1-based cell among all the notebook's cells, `line` and
    # `end_line` then count in that cell. None in files, and inside a run until the report.
    cell: int | None = None

    def replace(self, **changes: Any) -> Finding:
        """Return a copy with `changes` applied (dataclasses.replace)."""
        return dataclasses.replace(self, **changes)

    def sort_key(self) -> tuple:
        """Order by file, then cell (notebooks), line, column and rule id."""
        return (self.path, self.cell or 0, self.line, self.column, self.rule_id)

    def to_dict(self, root: Path | None = None) -> dict[str, Any]:
        """A JSON-ready dict; `path`s are made relative to `root` when inside it."""

        def rel(p: str) -> str:
            return relative_path(p, root)

        return {
            "rule_id": self.rule_id,
            "kind": self.kind.value,
            "status": self.status.value,
            "severity": self.severity.value,
            "path": rel(self.path),
            "cell": self.cell,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "message": self.message,
            "fix": self.fix,
            "gb_ids": list(self.gb_ids),
            "explanation": self.explanation,
            "hints": list(self.hints),
            "stack": [
                {"path": rel(f.path), "line": f.line, "function": f.function, "column": f.column}
                for f in self.stack
            ],
            "chain": list(self.chain),
            "entry": self.entry,
            "code": self.code,
            "extra": self.extra,
            # additive, only from `breakscan run --nproc-per-node`: the ranks that saw it; BRK521's
            # split made on purpose by DDP's optimizer
            **{k: self.extra[k] for k in ("ranks", "expected") if k in self.extra},
        }


def relative_path(path: str, root: Path | None) -> str:
    """`path` relative to `root` in POSIX form when inside it, else the absolute path."""
    if root is None:
        return path
    try:
        return Path(path).resolve().relative_to(root.resolve()).as_posix()
    except (ValueError, OSError):
        return path


@dataclass
class EntryReport:
    """What the dynamic pass saw for one entry (one compiled callable and its calls).

    Source: `torch._dynamo.explain` for graphs and ops per graph; the `fullgraph=True` check
    for `fullgraph_ok` / `fullgraph_error`; Dynamo's logs for breaks and recompiles.
    """

    name: str  # e.g. "fixtures/moe.py:MoE" or "transformers...:LongformerModel"
    path: str = ""
    line: int = 0
    calls: int = 0
    graphs: int = 0
    ops_per_graph: list[int] = field(default_factory=list)
    graph_breaks: int = 0
    recompiles: int = 0
    fullgraph_ok: bool | None = None
    fullgraph_error: str = ""
    largest_split_by: str = ""  # the break that splits the largest graph
    seconds: float = 0.0
    error: str = ""
    call_path: str = ""  # the user's line that called the entry first (the examples' `yield`)
    call_line: int = 0
    # The first call's graphs and the breaks between them, in call order (see
    # `breakscan.dynamic.runner.call_order`): `{"graph": i, "ops": n}` and `{"break": {path, line,
    # gb_id, gb_type, fallback}}`; run mode: every frame the program compiled.
    timeline: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class Interruption:
    """The user stopped the run (Ctrl-C or SIGTERM): the report holds what was collected before it."""

    signal: str  # "SIGINT", "SIGTERM"
    exit_code: int  # 128 + the signal's number: 130 for SIGINT
    message: str  # one sentence for the report: when it came and what is missing


@dataclass
class Report:
    """Everything a reporter formats: merged findings plus run facts. Reporters only format."""

    root: Path
    findings: list[Finding]
    files_scanned: int = 0
    entries: list[EntryReport] = field(default_factory=list)
    torch_version: str | None = None
    dynamic_ran: bool = False
    device: str = ""
    show_refuted: bool = False
    tool_version: str = ""
    fixed: list[Finding] = field(default_factory=list)  # applied by `--fix` before this scan
    interrupted: Interruption | None = None  # Ctrl-C/SIGTERM cut the dynamic pass short
    # Hidden by suppression comments: in no format; `--fix` still weighs them (a suppressed
    # print is still a print the BRK201 rewrite must not drop).
    suppressed: list[Finding] = field(default_factory=list)
    command: tuple[str, ...] = ()  # the command line that made the report (`--format html` shows it)

    def visible(self) -> list[Finding]:
        """Findings to show: all but `refuted` unless `show_refuted`."""
        return [f for f in self.findings if self.show_refuted or f.status is not Status.REFUTED]
