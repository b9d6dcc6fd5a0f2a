"""Frames Dynamo skips: graph breaks under a try block, and the comprehensions they expose.

Dynamo cannot resume after a graph break inside a try block (torch/_dynamo/symbolic_convert.py:
"we will not create continuation functions on graph breaks in try blocks"). It compiles up to
the last resumable point before the block, or, when the graph is still empty there, skips the
whole function ("Failed to handle graph break gracefully"), and runs the rest eagerly. Dynamo
still sees the frames that code creates: on Python <= 3.11 every list, set and dict
comprehension is a function of its own, called with an iterator, and Dynamo cannot step a
list, dict, set or str iterator passed in (GB4347, "Missing tp_iternext"). Measured on torch
2.13 / Python 3.11; Python 3.12 inlines comprehensions (PEP 709).

This is a cross-file pass over the index and the other rules' findings: it runs after phase B,
so a break predicted anywhere below a try body, through calls, submodules and the function a
decorator wraps, counts. Its findings are conditional: `extra["requires"]` lists the predicted
breaks they follow from (breakscan.merge judges them only where one of those was traced).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection
from pathlib import Path

from breakscan.catalog import Rule
from breakscan.findings import Finding, Kind, Status
from breakscan.notebook import is_notebook, module_text
from breakscan.static.index import (
    CallRef,
    Comprehension,
    FunctionInfo,
    ModuleInfo,
    TryFrame,
)
from breakscan.static.regions import Region, RegionFinder, RegionKey
from breakscan.static import unsaved
from breakscan.static.suppress import SUPPRESSED, is_suppressed, source_lines

CHECK = "try-skipped-comprehension"
BREAK_KINDS = (Kind.GRAPH_BREAK, Kind.FRAME_FALLBACK)

Site = tuple[str, int]  # (path, line) of a predicted break


class SkippedFrames:
    """Finds comprehensions that break because a graph break under a try block skips their frame.

    The compile regions and their call resolution come from the RegionFinder that computed
    them; the other rules' findings of this scan are the causes (their predicted graph breaks).
    """

    def __init__(self, finder: RegionFinder, findings: list[Finding]) -> None:
        """`finder` has computed the regions (RegionFinder.compute); `findings` are the scan's."""
        self.finder = finder
        self.index = finder.index
        self.regions = regions = finder.regions
        self._direct: dict[RegionKey, list[Site]] = defaultdict(list)
        self._spans: dict[str, list[tuple[int, int, RegionKey]]] = defaultdict(list)
        for region in regions.values():
            fn = region.function
            self._spans[str(region.module.path)].append((fn.line, fn.end_line or fn.line, region.key))
        for f in findings:
            if f.kind in BREAK_KINDS and f.status is Status.PREDICTED and f.rule_id.startswith("BRK") \
                    and not f.rule_id.startswith("BRK9"):
                key = self._region_at(f.path, f.line)
                if key is not None:
                    self._direct[key].append((f.path, f.line))
        self._memo: dict[RegionKey, frozenset[Site]] = {}
        self._resolved: dict[tuple[str, ...], list[Region]] = {}
        self._decorated: dict[str, list[Region]] | None = None

    def _region_at(self, path: str, line: int) -> RegionKey | None:
        best = None
        for first, last, key in self._spans.get(path, ()):
            if first <= line <= last and (best is None or first >= best[0]):
                best = (first, key)
        return best[1] if best else None

    # breaks below a region function ------------------------------------------------------------
    def breaks_below(self, region: Region) -> frozenset[Site]:
        """Predicted break sites in `region`'s function and in everything it calls (transitively)."""
        if region.key in self._memo:
            return self._memo[region.key]
        self._memo[region.key] = frozenset()  # cycle guard: a recursive call adds nothing new
        sites = set(self._direct.get(region.key, ()))
        for callee in self._callees(region, region.function.calls):
            sites |= self.breaks_below(callee)
        if region.cls is not None and region.function.name == "forward":
            for mod, _, fn in self.finder.submodule_forwards(region.cls):
                sub = self._region(mod, fn)
                if sub is not None:
                    sites |= self.breaks_below(sub)
        result = frozenset(sites)
        self._memo[region.key] = result
        return result

    def _region(self, module: ModuleInfo, fn: FunctionInfo) -> Region | None:
        return self.regions.get((str(module.path), fn.qualname, fn.occurrence))

    def _callees(self, region: Region, calls: list[CallRef]) -> list[Region]:
        """Region functions the `calls` (made in `region`'s function) reach, through the region
        finder's own call resolution, memoized per distinct call and caller scope."""
        out: list[Region] = []
        for kind, name in dict.fromkeys((c.kind, c.name) for c in calls):
            call = CallRef(kind, name)
            scope = region.module.qualify(call.name) if call.kind == "name" else (
                region.cls.qualname if region.cls is not None else "")
            key = (call.kind, scope, call.name)
            found = self._resolved.get(key)
            if found is None:
                targets = self.finder.resolve_call(region.module, region.cls, call)
                found = self._resolved[key] = [r for mod, _, fn in targets if (r := self._region(mod, fn))]
            out.extend(found)
        return out

    def _wrapped_by(self, decorator: str) -> list[Region]:
        """Region functions decorated with `decorator` (a qualified name)."""
        if self._decorated is None:
            self._decorated = defaultdict(list)
            for region in self.regions.values():
                for d in region.function.decorators:
                    self._decorated[d].append(region)
        return self._decorated.get(decorator, [])

    # the findings ---------------------------------------------------------------------------------
    def causes(self, region: Region, frame: TryFrame) -> frozenset[Site]:
        """Predicted breaks the try body of `frame` (inside `region`'s function) reaches."""
        path = str(region.module.path)
        sites = {s for s in self._direct.get(region.key, ())
                 if s[0] == path and frame.body_first <= s[1] <= frame.body_last}
        for callee in self._callees(region, frame.try_calls):
            sites |= self.breaks_below(callee)
        if frame.calls_param:  # a decorator's wrapper calling the function it wraps
            owner = f"{region.module.name}.{region.function.qualname}"
            for wrapped in self._wrapped_by(owner):
                sites |= self.breaks_below(wrapped)
        return frozenset(sites)

    def findings(self, rules: list[Rule], paths: Collection[str] | None = None) -> list[Finding]:
        """One finding per rule (those with the CHECK check, already filtered for this Python by
        breakscan.scan.active_rules) and per comprehension that breaks; only in the files
        `paths` (str) when given."""
        out: list[Finding] = []
        lines_cache: dict[str, list[str]] = {}
        for region in self.regions.values():
            if region.function.occurrence or not region.function.try_frames:
                continue
            if paths is not None and str(region.module.path) not in paths:
                continue
            for frame in region.function.try_frames:
                comps = [c for c in frame.comprehensions
                         if c.references_module and (not c.before_try or not frame.ops_before)]
                if not comps:
                    continue
                causes = self.causes(region, frame)
                if not causes:
                    continue
                path = str(region.module.path)
                requires = sorted(f"{p}:{n}" for p, n in causes)
                nearest = min(causes, key=lambda s: (s[0] != path, s[1]))
                where = f"{_short(nearest[0])}:{nearest[1]}"
                if len(causes) > 1:
                    where += f" and {len(causes) - 1} other site{'s' if len(causes) > 2 else ''}"
                lines = lines_cache.get(path)
                if lines is None:
                    try:
                        text = module_text(path) if is_notebook(path) else unsaved.read_bytes(path).decode("utf-8")
                        lines = lines_cache[path] = source_lines(text or "")
                    except (OSError, UnicodeDecodeError):
                        lines = lines_cache[path] = []
                for comp in comps:
                    column, end_column, code = _place(lines, comp)
                    code = " ".join(code.split())
                    short = code if len(code) <= 60 else code[:57] + "..."
                    for rule in rules:
                        suppressed = is_suppressed(rule.id, lines, comp.line, comp.end_line, rule.gb_ids)
                        out.append(Finding(
                            rule_id=rule.id, kind=rule.kind, path=path, line=comp.line, column=column,
                            end_line=comp.end_line, end_column=end_column,
                            message=rule.message.replace("{code}", short).replace("{cause}", where)
                            .replace("{line}", str(frame.try_line)),
                            severity=rule.severity, status=Status.PREDICTED, fix=rule.fix, gb_ids=rule.gb_ids,
                            chain=region.chain, code=short,
                            extra={"requires": requires, "try_line": frame.try_line,
                                   **({SUPPRESSED: True} if suppressed else {})},
                        ))
        return out


def _place(lines: list[str], comp: Comprehension) -> tuple[int, int, str]:
    """1-based code-point columns (ast gives UTF-8 byte offsets) and the comprehension's text."""
    def column(line: int, offset: int) -> int:
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        return len(text.encode("utf-8")[:offset].decode("utf-8", errors="ignore")) + 1

    first, last = column(comp.line, comp.offset), column(comp.end_line, comp.end_offset)
    if not (0 < comp.line <= comp.end_line <= len(lines)):
        return first, last, ""
    if comp.line == comp.end_line:
        return first, last, lines[comp.line - 1][first - 1:last - 1]
    body = [lines[comp.line - 1][first - 1:], *lines[comp.line:comp.end_line - 1], lines[comp.end_line - 1][:last - 1]]
    return first, last, "\n".join(body)


def _short(path: str) -> str:
    return Path(path).name
