"""Parse Dynamo's log text (graph breaks, recompiles, traced lines) into plain dicts.

Pure Python, no torch import: the child (`probe`) uses it on live log records and the tests
use it on captured text. Formats measured on torch 2.13 (see shared/DYNAMO-NOTES.md):

- graph break (artifact `graph_breaks`): `Graph break in user code at FILE:LINE`,
  `Graph Break Reason: ...`, the graph-break type line, `Explanation:`, `Hint:` lines,
  `Developer debug context:`, a `/gb/gbNNNN.html` link, `User code traceback:` frames;
- recompile (artifact `recompiles`): `Recompiling function F in FILE:LINE`, then
  `- N/M: <guard>  # <code>  # <path tail>:<line> in <fn>` lines and `- User stack trace:` frames;
- recompile limit (WARNING on `torch._dynamo.convert_frame`): `hit config.recompile_limit (8)`;
- traced line (artifact `trace_source`): `TRACE starts_line FILE:LINE in fn (orig)`;
- an exception escaping a frame compile (INFO on `torch._dynamo.convert_frame`; WARNING for
  hard errors): `WON'T CONVERT fn FILE line N` / `due to:` / Dynamo's traceback /
  `torch._dynamo.exc.Unsupported: <type>` with `Explanation:` / `Hint:` lines and the `/gb/` link /
  optional `from user code:` frames. Breaks
  raised outside the tracer (a generator compiled directly: GB0003; the recompile limit: GB0039) are
  logged only so; the frame runs eagerly.
"""

from __future__ import annotations

import linecache
import re
from typing import Any

from breakscan.catalog import gb_id_for_type

FRAME_RE = re.compile(r'^\s*(?:-\s+)?File "(?P<path>[^"]+)", line (?P<line>\d+), in (?P<func>.+?)\s*$')
RESUME_RE = re.compile(r"^torch_dynamo_resume_in_(?P<fn>.+)_at_(?P<line>\d+)$")
GB_URL_RE = re.compile(r"/gb/gb(?P<num>\d{4})\.html")
AT_RE = re.compile(r"in user code at (?P<path>.+):(?P<line>\d+)\s*$")
RECOMPILING_RE = re.compile(r"Recompiling function (?P<func>\S+) in (?P<path>.+):(?P<line>\d+)\s*$")
FAILURE_RE = re.compile(r"^-\s+(?P<cid>\d+/\d+):\s?(?P<rest>.*)$")
GUARD_SRC_RE = re.compile(r"#\s*(?P<path>\S+):(?P<line>\d+) in (?P<func>\S+)")
HINT_RE = re.compile(r"\(HINT: (?P<hint>.*)\)\s*$")
LIMIT_RE = re.compile(r"hit config\.(?P<which>\w*recompile_limit) \((?P<limit>\d+)\)")
LIMIT_FN_RE = re.compile(r"function: '(?P<func>[^']+)' \((?P<path>.+):(?P<line>\d+)\)")
TRACE_RE = re.compile(r"TRACE starts_line (?P<path>.+):(?P<line>\d+) in ")
WONT_CONVERT_RE = re.compile(r"^WON'T CONVERT (?P<func>\S+) (?P<path>.+) line (?P<line>\d+)\s*$")
EXC_LINE_RE = re.compile(
    r"^(?P<exc>[A-Za-z_][\w.]*(?:Error|Exception|Unsupported|Exit|Interrupt)\w*): ?(?P<msg>.*)$")
FALLBACK_MARK = "Skipping the function and falling back to eager"
DUPLICATE_MARK = "user stack suppressed due to duplicate graph break"


def original_function(name: str) -> str:
    """Map a resume function `torch_dynamo_resume_in_<fn>_at_<line>` back to `<fn>`."""
    m = RESUME_RE.match(name)
    return original_function(m.group("fn")) if m else name


def is_resume(name: str) -> bool:
    """True for Dynamo's generated resume functions (they continue a frame after a break)."""
    return RESUME_RE.match(name) is not None


def gb_id_from_text(text: str) -> str:
    """The graph-break id (`GB0124`) from the message's `/gb/gb0124.html` link, or ''."""
    m = GB_URL_RE.search(text)
    return f"GB{m.group('num')}" if m else ""


def byte_col_to_char_col(source_line: str, byte_offset: int) -> int:
    """1-based code-point column from a 0-based UTF-8 byte offset (FrameSummary.colno, 3.11+)."""
    prefix = source_line.encode("utf-8")[:byte_offset]
    return len(prefix.decode("utf-8", errors="ignore")) + 1


def _caret_span(code_display: str, caret_line: str, path: str, line: int) -> tuple[int, int | None]:
    """Columns (1-based start, exclusive end) of a traceback's `^~~` marks on the real source line.

    Python prints the stripped source line indented, with carets counted in characters of that
    display; we re-add the real line's indentation.
    """
    real = linecache.getline(path, line)
    indent = len(real) - len(real.lstrip()) if real.strip() else 0
    if not caret_line:
        return indent + 1, None
    shown_indent = len(code_display) - len(code_display.lstrip())
    marks = [i for i, ch in enumerate(caret_line) if ch in "^~"]
    start = marks[0] - shown_indent
    return indent + start + 1, indent + (marks[-1] - shown_indent) + 2


def parse_frames(lines: list[str]) -> list[dict[str, Any]]:
    """Frames from traceback lines (`File "p", line n, in f` + code + optional carets), outermost first."""
    frames: list[dict[str, Any]] = []
    i = 0
    while i < len(lines):
        m = FRAME_RE.match(lines[i])
        if not m:
            i += 1
            continue
        path, line = m.group("path"), int(m.group("line"))
        code, carets = "", ""
        j = i + 1
        if j < len(lines) and lines[j].strip() and not FRAME_RE.match(lines[j]):
            code = lines[j].lstrip("-") if lines[j].lstrip().startswith("-") else lines[j]
            j += 1
            if j < len(lines) and lines[j].strip() and set(lines[j].strip()) <= set("^~"):
                carets = lines[j]
                j += 1
        col, end_col = _caret_span(code, carets, path, line) if code else (None, None)
        frames.append(
            {
                "path": path,
                "line": line,
                "function": original_function(m.group("func")),
                "column": col,
                "end_column": end_col,
                "code": code.strip(),
            }
        )
        i = j
    return frames


def _gb_type(reason_block: list[str]) -> str:
    """The graph-break type: the last non-empty line before `Explanation:`."""
    lines = [ln.strip() for ln in reason_block if ln.strip()]
    if not lines:
        return ""
    last = lines[-1]
    return last.removeprefix("Graph Break Reason:").strip()


def _sections(body: list[str]) -> tuple[str, list[str]]:
    """Explanation text and hints from the lines after the graph-break type."""
    explanation: list[str] = []
    hints: list[str] = []
    current: list[str] | None = None
    for raw in body:
        s = raw.strip()
        if s.startswith("Explanation:"):
            current = explanation
            explanation.append(s.removeprefix("Explanation:").strip())
        elif s.startswith("Hint:"):
            hints.append(s.removeprefix("Hint:").strip())
            current = None
        elif s.startswith(("Developer debug context:", "For more details")):
            current = None
        elif current is explanation and s:
            explanation.append(s)
    return " ".join(explanation).strip(), hints


def is_pseudo_path(path: str) -> bool:
    """True for code without a source file (`<string>`: a dataclass's generated `__init__`, exec'd code)."""
    return not path or path.startswith("<")


def parse_wont_convert(text: str) -> dict[str, Any] | None:
    """Parse a `WON'T CONVERT fn FILE line N` record: an exception escaped a frame compile.

    Returns None for other text; else the keys of `parse_graph_break` with `fallback` True
    (the frame runs eagerly) and `escaped` True. `gb_type` is the exception's first line
    (`Attempt to trace generator`, or `ExcType: message` for an exception that is not Dynamo's
    `Unsupported`); `stack` is Dynamo's `from user code:` frames, else the frame's own `def`.
    """
    # exc_info repeats the traceback after the message: keep the first copy only.
    lines = text.split("\nSet TORCHDYNAMO_VERBOSE", 1)[0].splitlines()
    m = WONT_CONVERT_RE.match(lines[0].strip()) if lines else None
    if not m:
        return None
    # The raised exception is the last one before its `/gb/` link or user frames (a chained
    # traceback lists its causes first).
    end = next((i for i, ln in enumerate(lines) if "/gb/gb" in ln or ln.strip() == "from user code:"), len(lines))
    exc_at = next((i for i in range(end - 1, 0, -1) if EXC_LINE_RE.match(lines[i])), None)
    if exc_at is None:
        return None
    exc = EXC_LINE_RE.match(lines[exc_at])
    name, msg = (exc.group("exc"), exc.group("msg").strip()) if exc else ("", "")
    gb_type = msg if name.endswith("Unsupported") else f"{name.rsplit('.', 1)[-1]}: {msg}"
    user_at = next((i for i, ln in enumerate(lines) if ln.strip() == "from user code:"), len(lines))
    explanation, hints = _sections(lines[exc_at + 1 : user_at])
    stack = parse_frames(lines[user_at + 1 :])
    path, line = m.group("path"), int(m.group("line"))
    if not stack:
        stack = [{"path": path, "line": def_line(path, line), "function": m.group("func"), "column": None,
                  "end_column": None, "code": ""}]
    return {
        "path": stack[-1]["path"],
        "line": stack[-1]["line"],
        "function": m.group("func"),
        "gb_type": gb_type,
        "gb_id": gb_id_from_text("\n".join(lines)),
        "explanation": explanation,
        "hints": hints,
        "stack": stack,
        "fallback": True,
        "escaped": True,
        "duplicate": False,
    }


def parse_graph_break(text: str) -> dict[str, Any] | None:
    """Parse one graph-break log message (artifact `graph_breaks` / `dynamo_graph_break_reason`).

    Returns None when `text` is not a graph-break message. Keys: `path`, `line` (the
    `user code at` location), `gb_type`, `gb_id` (from the message's link, else the installed registry's id for `gb_type`,
    else ''),
    `explanation`, `hints`, `stack` (frames, innermost last), `fallback` (the whole frame
    was skipped), `duplicate` (Dynamo suppressed the stack of a repeated break).
    """
    # Drop Dynamo's own Python traceback that the structured-trace payload appends.
    text = text.split("\nTraceback (most recent call last):", 1)[0]
    lines = text.splitlines()
    if not lines or "Graph break" not in lines[0]:
        return None
    at = AT_RE.search(lines[0])
    user_tb = next((i for i, ln in enumerate(lines) if ln.startswith("User code traceback:")), len(lines))
    head = lines[1:user_tb]
    expl_at = next((i for i, ln in enumerate(head) if ln.strip().startswith("Explanation:")), None)
    if expl_at is None:
        # No structured explanation: the reason line itself is the type.
        reason = next((ln for ln in head if ln.startswith("Graph Break Reason:")), "")
        gb_type, explanation, hints = reason.removeprefix("Graph Break Reason:").strip(), "", []
    else:
        gb_type = _gb_type(head[:expl_at])
        explanation, hints = _sections(head[expl_at:])
    return {
        "path": at.group("path") if at else "",
        "line": int(at.group("line")) if at else 0,
        "gb_type": gb_type,
        # Releases before the links (2.8) name the type only: the installed registry maps it.
        "gb_id": gb_id_from_text(text) or gb_id_for_type(gb_type),
        "explanation": explanation,
        "hints": hints,
        "stack": parse_frames(lines[user_tb + 1 :]),
        "fallback": FALLBACK_MARK in text,
        "duplicate": DUPLICATE_MARK in lines[0],
    }


def _split_guard(rest: str) -> dict[str, Any]:
    """Split `<guard>  # <code>  # <path>:<line> in <fn> (HINT: ...)` into its parts."""
    hint_m = HINT_RE.search(rest)
    hint = hint_m.group("hint") if hint_m else ""
    if hint_m:
        rest = rest[: hint_m.start()].rstrip()
    guard, _, comment = rest.partition("  # ")
    src = GUARD_SRC_RE.search(comment) if comment else None
    return {
        "guard": guard.rstrip(),
        "hint": hint,
        # Dynamo shortens the path from the left (`mp/exp/x.py`): a suffix to resolve later.
        "source_path_tail": src.group("path") if src else "",
        "source_line": int(src.group("line")) if src else 0,
        "source_path": "",
    }


def parse_guard_failures(lines: list[str]) -> list[dict[str, Any]]:
    """Guard failures from `- N/M: guard ...` lines, each with its `User stack trace` frame if any."""
    failures: list[dict[str, Any]] = []
    stack_lines: list[str] = []

    def close() -> None:
        if failures and stack_lines:
            frames = parse_frames(stack_lines)
            if frames:
                failures[-1]["source_path"] = frames[-1]["path"]
                failures[-1]["source_line"] = frames[-1]["line"]
                failures[-1]["stack"] = frames
        stack_lines.clear()

    for raw in lines:
        s = raw.strip()
        m = FAILURE_RE.match(s)
        if m:
            close()
            failures.append({"compile_id": m.group("cid"), **_split_guard(m.group("rest"))})
        elif s.startswith("- User stack trace:"):
            stack_lines.clear()
        elif s.startswith("-") and failures:
            stack_lines.append(s[1:])
    close()
    return failures


def parse_recompile(text: str) -> dict[str, Any] | None:
    """Parse a `Recompiling function F in FILE:LINE` record (artifact `recompiles`).

    Returns None for other text. Keys: `function` (as logged, maybe a resume function),
    `root_function`, `path`, `line` (the code object's first line), `failures` (list of
    `{compile_id, guard, hint, source_path, source_path_tail, source_line}`, newest cache
    entry first as Dynamo logs them), `raw`.
    """
    lines = text.splitlines()
    m = RECOMPILING_RE.search(lines[0]) if lines else None
    if not m:
        return None
    return {
        "function": m.group("func"),
        "root_function": original_function(m.group("func")),
        "path": m.group("path"),
        "line": int(m.group("line")),
        "failures": parse_guard_failures(lines[1:]),
        "raw": text,
    }


def parse_recompile_limit(text: str) -> dict[str, Any] | None:
    """Parse the `hit config.recompile_limit (8)` WARNING (logger `torch._dynamo.convert_frame`)."""
    m = LIMIT_RE.search(text)
    if not m:
        return None
    fn = LIMIT_FN_RE.search(text)
    lines = text.splitlines()
    reason_at = next((i for i, ln in enumerate(lines) if "last reason:" in ln), None)
    failures: list[dict[str, Any]] = []
    if reason_at is not None:
        reason_lines = ["- " + lines[reason_at].split("last reason:", 1)[1].strip()]
        reason_lines += ["-" + ln for ln in lines[reason_at + 1 :] if not ln.startswith("User stack trace")]
        failures = parse_guard_failures(reason_lines)
    return {
        "limit": int(m.group("limit")),
        "which": m.group("which"),
        "function": fn.group("func") if fn else "",
        "path": fn.group("path") if fn else "",
        "line": int(fn.group("line")) if fn else 0,
        "failures": failures,
        "raw": text,
    }


def parse_trace_source(text: str) -> tuple[str, int] | None:
    """(path, line) from a `TRACE starts_line FILE:LINE in fn` record (artifact `trace_source`)."""
    m = TRACE_RE.search(text)
    return (m.group("path"), int(m.group("line"))) if m else None


def def_line(path: str, line: int) -> int:
    """The `def`/`class` line of a code object whose `co_firstlineno` is `line`.

    A decorated function's `co_firstlineno` is its first decorator's line: skip past the
    decorators. Returns `line` when it is not a decorator or the source cannot be read.
    """
    if not linecache.getline(path, line).lstrip().startswith("@"):
        return line
    for ln in range(line + 1, line + 50):
        s = linecache.getline(path, ln).lstrip()
        if s.startswith(("def ", "async def ", "class ")):
            return ln
    return line


def find_def_before(path: str, line: int, name: str) -> int:
    """The line of the nearest `def name(` at or above `line` (for resume functions), or 0."""
    pattern = re.compile(rf"^\s*(async\s+)?def\s+{re.escape(name)}\s*\(")
    for ln in range(line, 0, -1):
        if pattern.match(linecache.getline(path, ln)):
            return ln
    return 0


def resolve_tail(tail: str, candidates: list[str]) -> str:
    """The candidate path ending with Dynamo's left-shortened `tail` (`mp/exp/x.py`), or ''."""
    for cand in candidates:
        if cand.endswith(tail):
            return cand
    return ""
