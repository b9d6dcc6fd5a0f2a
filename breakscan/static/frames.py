"""Frames Dynamo skips after a graph break it cannot resume from, and the frames they start.

Measured on torch 2.13 / Python 3.11 (torch/_dynamo/symbolic_convert.py, and programs run under
`torch.compile(backend="eager")`). Dynamo resumes after a graph break by compiling the graph so
far and a continuation function, except in four kinds of block:

- a `try` body: "we will not create continuation functions on graph breaks in try blocks".
  Dynamo compiles up to the last resumable point before the block ("Compiling up to the
  previous resumable state, then skipping the rest of the function"), or, when the graph is
  still empty there, skips the whole frame ("Failed to handle graph break gracefully");
- a `for`/`while` body: "graph break in loop", the whole frame is skipped (`skip_frame`);
- a generator expression (`sum(t.sum().item() for t in ts)`, or the truth test `any(...)` /
  `all(...)` runs on its elements): the whole frame runs eagerly again, as after a loop's break
  (measured on 2.13 and 2.15); not one inside a list, set or dict comprehension, whose frame
  Dynamo resumes after;
- the body of a `with` whose context manager Dynamo models as generic (a class of the project
  with `__enter__`, a `contextlib.contextmanager` function): no resume under it, the whole frame
  is skipped. Torch's own (`no_grad`, `autocast`, ...) are restored and resumed.

The break through a call counts where the call is written: a callee inlined into the block
breaks, Dynamo cannot resume its caller there. The rest of the skipped frame then runs eagerly:

- graph breaks and recompiles predicted on its own later lines do not happen (they are
  dropped here);
- every frame that code creates is started by Dynamo on its own, traced from its start:
  callees and nested defs (their own breaks still happen, predicted where they are written),
  on Python <= 3.11 list, set and dict comprehensions (Dynamo cannot step a list, dict, set or
  str iterator passed into one that names `self` or a torch module: GB4347, BRK406), and
  generator expressions (Dynamo refuses any generator frame: "Attempt to trace generator",
  GB0003, the frame falls back, BRK407).

This is a cross-file pass over the index and the other rules' findings: it runs after phase B,
so a break predicted anywhere below a block, through calls, submodules and the function a
decorator wraps, counts. Its findings are conditional: `extra["requires"]` lists the predicted
breaks they follow from (breakscan.merge judges them only where one of those was traced).
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from breakscan.catalog import Rule
from breakscan.findings import Finding, Kind, Status
from breakscan.notebook import is_notebook, module_text
from breakscan.static.index import (
    CallRef,
    Comprehension,
    DefFrame,
    FunctionInfo,
    ModuleInfo,
    SkipBlock,
    inside_spans,
)
from breakscan.static.regions import Region, RegionFinder, RegionKey
from breakscan.static import unsaved
from breakscan.static.suppress import SUPPRESSED, is_suppressed, source_lines

CHECK = "try-skipped-comprehension"  # BRK406
GENERATOR_CHECK = "skipped-frame-generator"  # BRK407
TRANSFORM_CHECK = "transform-body-fallback"  # BRK417
BUILT_CHECK = "built-object-method-break"  # BRK409
COMPREHENSION_CALL_CHECK = "comprehension-call-break"  # BRK410
GENERATOR_LIST_CHECK = "generator-over-list-call-break"  # BRK411
QUIET_CHECK = "quiet-callee-comprehension"  # BRK412
CALL_BREAK_CHECKS = (COMPREHENSION_CALL_CHECK, GENERATOR_LIST_CHECK)
CHECKS = (CHECK, GENERATOR_CHECK, TRANSFORM_CHECK, BUILT_CHECK, QUIET_CHECK, *CALL_BREAK_CHECKS)
# `super().items()`, `self.keys()` on a torch container base: a view of its submodules, no operation
_SUPER_VIEWS = frozenset({"items", "keys", "values", "__getitem__", "__iter__", "__len__", "__contains__"})
# Module containers whose iterator is a dict view of their submodules (Dynamo cannot rebuild it)
MODULE_CONTAINERS = {"torch.nn.ModuleList", "torch.nn.Sequential", "torch.nn.ModuleDict",
                     "torch.nn.modules.container.ModuleList", "torch.nn.modules.container.Sequential",
                     "torch.nn.modules.container.ModuleDict"}
BREAK_KINDS = (Kind.GRAPH_BREAK, Kind.FRAME_FALLBACK)
CONTEXT_MANAGER_DECORATORS = {"contextlib.contextmanager", "contextlib.asynccontextmanager"}

Site = tuple[str, int]  # (path, line) of a predicted break


@dataclass(frozen=True)
class Skip:
    """Where Dynamo gives up on a def's frame: the predicted break at `line` (in the def's own
    code: a break, or a call that breaks below) inside `block`; code from `eager_from` on runs
    eagerly; `causes` are the predicted break sites it follows from."""

    block: SkipBlock
    line: int
    eager_from: int
    causes: frozenset[Site]


class SkippedFrames:
    """Finds the frames Dynamo skips after a graph break it cannot resume from (see the module
    docstring), drops the predictions on their eager lines and flags the frames they start.

    The compile regions and their call resolution come from the RegionFinder that computed
    them; the other rules' findings of this scan are the causes (their predicted graph breaks).
    """

    def __init__(self, finder: RegionFinder, findings: list[Finding], settings: dict | None = None) -> None:
        """`finder` has computed the regions (RegionFinder.compute); `findings` are the scan's;
        `settings` the Dynamo settings of each region (breakscan.static.dynamo_settings): under
        `fullgraph=True` the first break raises instead, so nothing runs eagerly to start frames."""
        self.settings = settings or {}
        self.finder = finder
        self.index = finder.index
        self.regions = regions = finder.regions
        self._direct: dict[RegionKey, list[Site]] = defaultdict(list)
        self._columns: dict[Site, int] = {}  # the first column of a predicted break on each line (1-based)
        self._spans: dict[str, list[tuple[int, int, RegionKey]]] = defaultdict(list)
        for region in regions.values():
            fn = region.function
            self._spans[str(region.module.path)].append((fn.line, fn.end_line or fn.line, region.key))
        for f in findings:
            # A break behind a test on its own line (`extra.guard_lines`: `p > 0 and random() < p`)
            # may never run: precision first, it skips no frame. Nor does one in an `except`
            # handler (`extra.except_handler`): it runs only when the `try` body raises.
            if f.kind in BREAK_KINDS and f.status is Status.PREDICTED and f.rule_id.startswith("BRK") \
                    and not f.rule_id.startswith("BRK9") and not f.extra.get("guard_lines") \
                    and not f.extra.get("except_handler"):
                key = self._region_at(f.path, f.line)
                if key is not None:
                    self._direct[key].append((f.path, f.line))
                    site = (f.path, f.line)
                    self._columns[site] = min(self._columns.get(site, f.column), f.column)
        self._memo: dict[RegionKey, frozenset[Site]] = {}
        self._quiet_memo: dict[RegionKey, bool] = {}
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
        finder's own call resolution, on the class of `self` there (Region.dispatch: an inherited
        `update`'s `self.validate()` is the subclass's), memoized per distinct call and caller scope."""
        out: list[Region] = []
        self_cls = region.dispatch or region.cls
        for kind, name in dict.fromkeys((c.kind, c.name) for c in calls):
            call = CallRef(kind, name)
            scope = region.module.qualify(call.name) if call.kind in ("name", "registry") else (
                self_cls.qualname if self_cls is not None else "")
            key = (call.kind, scope, call.name, region.cls.qualname if region.cls is not None else "")
            found = self._resolved.get(key)
            if found is None:
                targets = self.finder.resolve_call(region.module, region.cls, call, region.dispatch)
                found = self._resolved[key] = [r for mod, _, fn in targets if (r := self._region(mod, fn))]
            out.extend(found)
        return out

    def _layers(self, region: Region, attr: str) -> list[Region]:
        """What calling an element of `self.<attr>` (a ModuleList built in `__init__`) runs."""
        cls = region.dispatch or region.cls
        if cls is None:
            return []
        _, _, subs = self.index.class_attr_kinds(cls.qualname)
        found = [t for q in subs.get(attr, ()) if (t := self.index.instance_call(q)) is not None]
        return [r for mod, _, fn in found if (r := self._region(mod, fn)) is not None]

    def _wrapped_by(self, decorator: str) -> list[Region]:
        """Region functions decorated with `decorator` (a qualified name)."""
        if self._decorated is None:
            self._decorated = defaultdict(list)
            for region in self.regions.values():
                for d in region.function.decorators:
                    self._decorated[d].append(region)
        return self._decorated.get(decorator, [])

    def _generic_context(self, module: ModuleInfo, ctx: str) -> bool:
        """Whether `with ctx(...)` enters a context manager Dynamo cannot resume under: a project
        class with `__enter__`, or a project `contextlib.contextmanager` function. Anything else
        (torch's own, a library's) is left alone: unknown is not a skip."""
        qual = module.qualify(ctx)
        if self.index.lookup_class(qual) is not None:
            return self.index.method(qual, "__enter__") is not None
        found = self.index.lookup_function(qual)
        return found is not None and bool(CONTEXT_MANAGER_DECORATORS & set(found[1].decorators))

    def _block_sites(self, region: Region, frame: DefFrame, block: SkipBlock) -> tuple[list[int], set[Site]]:
        """The lines of `frame`'s own code inside `block` where a predicted break happens (the
        break itself, or a call whose callee breaks below), and the break sites behind them."""
        path = str(region.module.path)
        sites = {s for s in self._direct.get(region.key, ()) if s[0] == path
                 and block.body_first <= s[1] <= block.body_last and not _in_nested(s[1], frame.nested)}
        if block.kind == "genexpr":  # a break written inside the expression; not the calls in it
            sites = {s for s in sites if _inside_columns(block, s[1], self._columns.get(s))}
            return [line for _, line in sites], sites
        lines = [line for _, line in sites]
        variable, attr = block.loop_over
        for line, call in frame.calls:
            # A generator function called in a `for`'s header runs its body at each step of the loop.
            header = block.kind == "loop" and block.line <= line < block.body_first
            if not (header or block.body_first <= line <= block.body_last):
                continue
            below: set[Site] = set()
            callees = self._layers(region, attr) if call.kind == "name" and call.name == variable and variable \
                else self._callees(region, [call])
            if header:
                callees = [c for c in callees if c.function.is_generator]
            for callee in callees:
                below |= self.breaks_below(callee)
            if below:
                lines.append(line)
                sites |= below
        param_lines = [n for n in frame.param_lines if block.body_first <= n <= block.body_last]
        if param_lines:  # a decorator's wrapper calling the function it wraps
            owner = f"{region.module.name}.{region.function.qualname}"
            below = set()
            for wrapped in self._wrapped_by(owner):
                below |= self.breaks_below(wrapped)
            if below:
                lines.extend(param_lines)
                sites |= below
        return lines, sites

    def skip(self, region: Region, frame: DefFrame) -> Skip | None:
        """Where Dynamo gives up on `frame` (a def in `region`'s function), or None."""
        found: list[tuple[int, SkipBlock, set[Site]]] = []
        for block in frame.blocks:
            if block.kind == "with" and not self._generic_context(region.module, block.ctx):
                continue
            lines, sites = self._block_sites(region, frame, block)
            if lines:
                found.append((min(lines), block, sites))
        if not found:
            return None
        line = min(f[0] for f in found)
        # The outermost block holding the first break decides: a loop in a try resumes before
        # the try, a try in a loop skips the whole frame.
        _, block, sites = min((f for f in found if _holds(f[1], line)), key=lambda f: f[1].line)
        path = str(region.module.path)
        earlier = [n for p, n in self._direct.get(region.key, ()) if p == path and frame.def_line <= n < block.line
                   and not _in_nested(n, frame.nested, self._columns.get((p, n)))]
        if block.kind == "try" and block.ops_before:
            eager_from = block.line  # compiled up to the last resumable point before the try
        else:  # the whole frame, or the continuation after the last break before the block
            eager_from = max(earlier) + 1 if earlier else frame.def_line
        return Skip(block, line, eager_from, frozenset(sites))

    def skips(self, paths: Collection[str] | None = None) -> list[tuple[Region, DefFrame, Skip]]:
        """Every def frame of the regions that Dynamo gives up on, with where; only those of the
        files `paths` (str) when given."""
        out = []
        for region in self.regions.values():
            if region.function.occurrence or (paths is not None and str(region.module.path) not in paths):
                continue
            for frame in region.function.frames:
                found = self.skip(region, frame)
                if found is not None:
                    out.append((region, frame, found))
        return out

    # the findings ---------------------------------------------------------------------------------
    def apply(self, findings: list[Finding], rules: list[Rule],
              paths: Collection[str] | None = None) -> tuple[list[Finding], list[Finding]]:
        """`findings` without the predicted graph breaks and recompiles on lines a skipped frame
        runs eagerly, and the new findings of `rules` (BRK406 / BRK407, already filtered for this
        Python by breakscan.scan.active_rules) for the frames the eager code starts. With `paths` (the
        language server's open files), only the frames of those files are worked out, and only
        findings in them are returned as new."""
        skips = self.skips(paths)
        # per file: (break line, frame end, nested defs and lambdas, the other arms of `if`s around the
        # block: they never run in the call that broke there)
        eager: dict[str, list[tuple[int, int, list[tuple[int, int, int]], tuple[tuple[int, int], ...]]]] = \
            defaultdict(list)
        for region, frame, found in skips:
            eager[str(region.module.path)].append((found.line, frame.def_end, frame.nested, found.block.exclusive))
        kept = [f for f in findings if not _runs_eagerly(f, eager.get(f.path, ()))]
        dropped = {(f.path, f.line) for f in findings if f.status is Status.PREDICTED} \
            - {(f.path, f.line) for f in kept}
        by_check: dict[str, list[Rule]] = defaultdict(list)
        for rule in rules:
            by_check[rule.match.get("check", "")].append(rule)
        new: list[Finding] = []
        lines_of = functools.cache(_source_lines)  # each file read once per scan
        flagged: set[RegionKey] = set()
        flagged_comps: set[tuple[str, int, int]] = set()
        for region, frame, found in skips:
            if getattr(self.settings.get(region.key), "fullgraph", False):
                continue
            path = str(region.module.path)
            comps = [c for c in frame.comprehensions if c.references_module
                     and c.line >= found.eager_from and not _in_nested(c.line, frame.nested)]
            gens = [g for g in frame.genexprs if g.line >= found.eager_from and not _in_nested(g.line, frame.nested)
                    and not _holds_span(found.block, g)]  # the expression that broke: already flagged there
            started = self._generators_called(region, frame, found.eager_from)
            quiet = self._quiet_called(region, frame, found.eager_from) if by_check[QUIET_CHECK] else []
            if not (comps and by_check[CHECK]) and not ((gens or started) and by_check[GENERATOR_CHECK]) \
                    and not quiet:
                continue
            causes = sorted(found.causes - dropped)
            lines = lines_of(path)
            for callee in quiet:
                callee_path = str(callee.module.path)
                callee_lines = lines_of(callee_path)
                for comp in callee.function.quiet_comprehensions:
                    if (callee_path, comp.line, comp.offset) not in flagged_comps:
                        flagged_comps.add((callee_path, comp.line, comp.offset))
                        new += [self._finding(rule, region, found, causes, comp, callee_lines, at=callee)
                                for rule in by_check[QUIET_CHECK]]
            for check, items in ((CHECK, comps), (GENERATOR_CHECK, gens)):
                for comp in items:
                    for rule in by_check[check]:
                        new.append(self._finding(rule, region, found, causes, comp, lines))
            for gen in started:
                if gen.key not in flagged:  # one generator frame, flagged once
                    flagged.add(gen.key)
                    gen_path = str(gen.module.path)
                    gen_lines = lines_of(gen_path)
                    span = _def_span(gen.function, gen_lines)
                    new += [self._finding(rule, region, found, causes, span, gen_lines, at=gen)
                            for rule in by_check[GENERATOR_CHECK]]
        new += self._transform_bodies(by_check[TRANSFORM_CHECK], dropped, lines_of)
        new += self._built_object_breaks(by_check[BUILT_CHECK], dropped, lines_of, paths)
        fallbacks, straight = self._comprehension_call_breaks({c: by_check[c] for c in CALL_BREAK_CHECKS},
                                                              dropped, lines_of, paths)
        new += fallbacks
        if straight:  # the frame falls back there: the later lines of its function run eagerly
            after: dict[RegionKey, int] = {}
            for line, key in straight:
                after[key] = min(line, after.get(key, line))
            kept = [f for f in kept if not (
                f.status is Status.PREDICTED and f.kind in (*BREAK_KINDS, Kind.RECOMPILE)
                and f.line > after.get(self._region_at(f.path, f.line), f.line))]
        if paths is not None:
            new = [f for f in new if f.path in paths]
        return kept, new

    def _transform_bodies(self, rules: list[Rule], dropped: set[Site], lines_of) -> list[Finding]:
        """BRK417 at the `def` of each project function passed to a function transform
        (regions.FUNCTION_TRANSFORMS) with a predicted break in it or below: after the break the
        eager transform calls it as a frame of its own, which Dynamo refuses (GB0149, measured on
        2.13 with vmap, grad and jacrev). Conditional on those breaks, like BRK406."""
        out: list[Finding] = []
        for key, op in sorted(getattr(self.finder, "transform_bodies", {}).items()) if rules else ():
            region = self.regions.get(key)
            if region is None or getattr(self.settings.get(key), "fullgraph", False):
                continue
            causes = sorted(self.breaks_below(region) - dropped)
            if not causes:
                continue
            lines = lines_of(key[0])
            span = _def_span(region.function, lines)
            column, end_column, code = _place(lines, span)
            where = _cause_text(causes, key[0])
            out += [_conditional_finding(
                rule, region, key[0], lines, span.line, span.end_line, column, end_column, code.strip(), causes,
                {"{code}": code.strip(), "{cause}": where, "{op}": op.rsplit(".", 1)[-1]},
                {"function_transform": op}) for rule in rules]
        return out

    def _built_object_breaks(self, rules: list[Rule], dropped: set[Site], lines_of,
                             paths: Collection[str] | None) -> list[Finding]:
        """BRK409 at `m.update(x)` in a region function, `m` an object of a project class built
        in that function (`m = Meter()`, or a factory's, FunctionInfo.built_calls) with no
        predicted break of the function's own between the binding and the call, when `update`
        breaks at or below it: Dynamo cannot rebuild an object it made up while tracing
        ("Reconstruction failure", GB0092) to resume after the break, and the call falls back
        (measured on 2.13 and 2.15: the whole frame runs eagerly for a function, a graph break
        for a module's `forward`; an object passed in, or crossed by an earlier break, has a
        source and resumes). Conditional on the breaks below, like BRK406."""
        out: list[Finding] = []
        for region in self.regions.values() if rules else ():
            fn = region.function
            if not fn.built_calls or fn.occurrence or getattr(self.settings.get(region.key), "fullgraph", False):
                continue
            path = str(region.module.path)
            if paths is not None and path not in paths:
                continue
            own = [n for p, n in self._direct.get(region.key, ()) if p == path]
            # a break in a loop, try or with body above skips the frame: the call then runs eagerly
            skipped = [found.eager_from for frame in fn.frames if frame.def_line == fn.def_line
                       and (found := self.skip(region, frame)) is not None]
            for local, method, bound, line, between in fn.built_calls:
                if any(line >= eager_from for eager_from in skipped):
                    continue
                cls = fn.local_classes.get(local)
                if cls is None or any(bound <= n < line for n in own) or self._breaks_between(region, between):
                    continue
                causes: set[Site] = set()
                for callee in self._callees(region, [CallRef("name", f"{cls}.{method}")]):
                    causes |= self.breaks_below(callee)
                causes -= dropped
                if not causes:
                    continue
                lines = lines_of(path)
                text = lines[line - 1] if 0 < line <= len(lines) else ""
                code = text.strip()
                where = _cause_text(causes, path)
                column = len(text) - len(text.lstrip()) + 1
                replacements = {"{code}": code if len(code) <= 60 else code[:57] + "...", "{cause}": where,
                                "{local}": local, "{cls}": cls.rpartition(".")[2], "{line}": str(bound)}
                out += [_conditional_finding(rule, region, path, lines, line, line, column, len(text.rstrip()) + 1,
                                             code, sorted(causes), replacements) for rule in rules]
        return out

    def _comprehension_call_breaks(self, by_check: dict[str, list[Rule]], dropped: set[Site], lines_of,
                                   paths: Collection[str] | None) -> tuple[list[Finding], list[tuple]]:
        """BRK410 at a comprehension of a region function's own code (index.ComprehensionCalls:
        over a dict view, a `zip`, or a `ModuleList`/`Sequential`/`ModuleDict` on `self`) whose
        body calls something that breaks at or below it, with no predicted break written in the
        comprehension itself. On Python <= 3.11 the comprehension is a function called with its
        iterator; the break in the call it inlines makes Dynamo break at that call in the
        enclosing frame and rebuild the iterator, which it cannot ("Reconstruction failure",
        GB0092); the comprehension's own frame then cannot step it (GB4347 before 2.14, GB9493
        from 2.14). Measured on 2.13 and 2.15: a break written in the comprehension's own code,
        or a range, tuple, list or `enumerate` iterator, resumes. Conditional on the breaks
        below, like BRK406; not where a skipped frame runs the comprehension eagerly (BRK406's).

        A generator expression consumed step by step (`sum(...)`, `any(...)`) over a list (a
        local bound to one, or a plain list on `self`) whose body calls such code makes the frame
        fall back too: Dynamo cannot rebuild the generator it has stepped (GB8335, BRK411,
        measured on 2.13 and 2.15). Over a module container or `range`, 2.13 sometimes fails on
        the generator's cell (GB0091) and 2.15 resumes: not reported.

        Returns the findings, and (last line, region key) of those in straight-line code
        of their function (index.ComprehensionCalls.straight): where the frame falls back, its
        later lines run eagerly (under an `if`, the other arm goes on)."""
        out: list[Finding] = []
        straight: list[tuple] = []
        for region in self.regions.values() if any(by_check.values()) else ():
            fn = region.function
            if not fn.comprehension_calls or fn.occurrence \
                    or getattr(self.settings.get(region.key), "fullgraph", False):
                continue
            path = str(region.module.path)
            if paths is not None and path not in paths:
                continue
            own = [n for p, n in self._direct.get(region.key, ()) if p == path]
            skipped = [found.eager_from for frame in fn.frames if frame.def_line == fn.def_line
                       and (found := self.skip(region, frame)) is not None]
            cls = region.dispatch or region.cls
            subs = self.index.class_attr_kinds(cls.qualname)[2] if cls is not None else {}
            for comp in fn.comprehension_calls:
                span = comp.span
                if any(span.line >= eager_from for eager_from in skipped) \
                        or any(span.line <= n <= span.end_line for n in own):
                    continue
                over, check = comp.over, COMPREHENSION_CALL_CHECK
                if over.startswith("generator:"):
                    over = over[len("generator:"):]
                    held = set(subs.get(over[5:], ())) if over.startswith("self.") else set()
                    if over == "list" or (held and not MODULE_CONTAINERS & held):
                        check = GENERATOR_LIST_CHECK
                    else:
                        continue
                elif over.startswith("self.") and not MODULE_CONTAINERS & set(subs.get(over[5:], ())):
                    continue
                rules = by_check.get(check)
                if not rules:
                    continue
                causes: set[Site] = set()
                for _, call in comp.calls:
                    for callee in self._callees(region, [call]):
                        causes |= self.breaks_below(callee)
                for attr in comp.element_attrs:
                    for callee in self._layers(region, attr):
                        causes |= self.breaks_below(callee)
                causes -= dropped
                if not causes:
                    continue
                lines = lines_of(path)
                column, end_column, short = _short_place(lines, span)
                where = _cause_text(causes, path)
                out += [_conditional_finding(rule, region, path, lines, span.line, span.end_line, column, end_column,
                                             short, sorted(causes), {"{code}": short, "{cause}": where})
                        for rule in rules]
                if comp.straight:
                    straight.append((span.end_line, region.key))
        return out, straight

    def _breaks_between(self, region: Region, calls: tuple[CallRef, ...]) -> bool:
        """Whether one of `calls` (made in `region`'s function) breaks at or below it: a project
        function or method, or an object of a project class called (`model(x)` with `model` a
        local instance: its `__call__` or `forward`). Calls it cannot resolve are taken not to."""
        instances = region.function.local_classes
        for call in calls:
            if call.kind == "name" and call.name in instances:
                target = self.index.instance_call(region.module.qualify(instances[call.name]))
                callee = self._region(target[0], target[2]) if target else None
                callees = [callee] if callee else []
            else:
                callees = self._callees(region, [call])
            if any(self.breaks_below(callee) for callee in callees):
                return True
        return False

    def _generators_called(self, region: Region, frame: DefFrame, eager_from: int) -> list[Region]:
        """Project generator functions the eager code of `frame` calls (from `eager_from` on):
        each starts a generator frame, which Dynamo refuses (GB0003, at its `def`). Not one with
        a predicted break of its own: measured on 2.13, a generator whose loop broke while Dynamo
        inlined it is not reported again when the eager code runs it."""
        out: list[Region] = []
        for line, call in frame.calls:
            if line >= eager_from and not _in_nested(line, frame.nested):
                out += [r for r in self._callees(region, [call])
                        if r.function.is_generator and r not in out and not self._direct.get(r.key)]
        return out

    def _quiet_called(self, region: Region, frame: DefFrame, eager_from: int) -> list[Region]:
        """Region functions that trace no operation (_quiet) and hold comprehensions Dynamo
        traces on their own, called by the eager code of `frame` (from `eager_from` on) or, being
        quiet too, by one of those: each starts a frame Dynamo skips ("No ops traced for the FX
        graph", measured on 2.13 and 2.15), so its comprehensions start frames of their own and
        cannot step the iterator they receive (BRK412)."""
        todo = [c for line, call in frame.calls if line >= eager_from and not _in_nested(line, frame.nested)
                for c in self._callees(region, [call])]
        seen: set[RegionKey] = set()
        out: list[Region] = []
        while todo:
            callee = todo.pop()
            if callee.key in seen or not self._quiet(callee):
                continue
            seen.add(callee.key)
            if callee.function.quiet_comprehensions:
                out.append(callee)
            for call in callee.function.quiet_calls or ():
                todo.extend(self._callees(callee, [call]))
        return out

    def _quiet(self, region: Region) -> bool:
        """Whether calling `region`'s function traces no operation: its own code cannot
        (FunctionInfo.quiet_calls), it has no predicted break, the attributes of `self` it reads
        hold no tensor (_quiet_attr), and every project function it calls is quiet too; a call
        that reaches no project function is quiet only for the container views of `super()` or
        of a `ModuleDict`/`ModuleList`/`Sequential` the class derives from (`self.keys()`)."""
        key = region.key
        if key in self._quiet_memo:
            return self._quiet_memo[key]
        self._quiet_memo[key] = True  # cycle guard: a recursive call adds no operation of its own
        fn = region.function
        result = fn.quiet_calls is not None and not self._direct.get(key)
        cls = region.dispatch or region.cls
        for call in fn.quiet_calls or () if result else ():
            if call.kind == "attr":  # a submodule, a constant, a method read: no tensor
                result = cls is not None and self._quiet_attr(cls.qualname, call.name)
            else:
                targets = self._callees(region, [call])
                result = all(self._quiet(t) for t in targets) if targets else call.name in _SUPER_VIEWS and (
                    call.kind == "super" or call.kind == "self" and cls is not None
                    and self.index.inherits(cls.qualname, MODULE_CONTAINERS))  # `self.keys()` of a ModuleDict
            if not result:
                break
        self._quiet_memo[key] = result
        return result

    def _quiet_attr(self, cls: str, attr: str) -> bool:
        """Whether reading `attr` of an instance of project class `cls` gives no tensor: a
        submodule, a constant `__init__` stores or a parameter annotated `str`, `int` or `bool`
        it stores, a method that is not a property, or a class constant by its name (`CLASS_ATTRS`)."""
        tensors, scalars, subs = self.index.class_attr_kinds(cls)
        if attr in tensors:
            return False
        if attr in subs or attr in scalars or (attr.isupper() and not attr.startswith("_")):
            return True
        if any(attr in c.python_attrs for c in self.index.project_mro(cls)):
            return True  # `self.tag = tag` with `tag: str`
        found = self.index.method(cls, attr)
        return found is not None and not any(d.endswith("property") for d in found[2].decorators)

    def _finding(self, rule: Rule, region: Region, found: Skip, causes: list[Site], comp: Comprehension,
                 lines: list[str], at: Region | None = None) -> Finding:
        """A finding of `rule` on `comp` (a span in `region`'s file, or in `at`'s: a generator
        function or a quiet function the skipped frame calls)."""
        path = str(region.module.path)
        column, end_column, short = _short_place(lines, comp)
        where = _cause_text(causes or [(path, found.line)], path)
        block = {"try": "the try block", "loop": "the loop", "with": "the with block",
                 "genexpr": "the generator expression"}[found.block.kind]
        return _conditional_finding(
            rule, region, str(at.module.path) if at else path, lines, comp.line, comp.end_line, column, end_column,
            short, causes, {"{code}": short, "{cause}": where, "{line}": str(found.block.line), "{block}": block,
                            "{caller}": region.function.qualname, "{callee}": at.function.qualname if at else ""},
            extra={"try_line": found.block.line, "skip_block": found.block.kind},
            chain=region.chain + ((at.function.qualname,) if at else ()))


def _conditional_finding(rule: Rule, region: Region, path: str, lines: list[str], first: int, last: int,
                         column: int, end_column: int, code: str, causes: Collection[Site],
                         replacements: dict[str, str], extra: dict | None = None,
                         chain: tuple[str, ...] | None = None) -> Finding:
    """A predicted finding of `rule` on lines `first`..`last` of `path` (columns 1-based), its
    message's placeholders filled from `replacements` (`{code}` and `{cause}` included), that
    follows from the break sites `causes` (`extra["requires"]`, judged by breakscan.merge only
    where one of them was traced); `chain`: its compile-region chain (default `region`'s)."""
    message = rule.message
    for key, value in replacements.items():
        message = message.replace(key, value)
    suppressed = is_suppressed(rule.id, lines, first, last, rule.gb_ids)
    return Finding(
        rule_id=rule.id, kind=rule.kind, path=path, line=first, column=column, end_line=last,
        end_column=end_column, message=message, severity=rule.severity, status=Status.PREDICTED,
        fix=rule.fix, gb_ids=rule.gb_ids, chain=region.chain if chain is None else chain, code=code,
        extra={"requires": [f"{p}:{n}" for p, n in causes], **(extra or {}),
               **({SUPPRESSED: True} if suppressed else {})},
    )


def _cause_text(causes: Collection[Site], path: str) -> str:
    """The `{cause}` of a message: the nearest break site (in `path` first, then by line), and
    how many others there are."""
    nearest = min(causes, key=lambda c: (c[0] != path, c[1]))
    where = f"{_short(nearest[0])}:{nearest[1]}"
    if len(causes) > 1:
        where += f" and {len(causes) - 1} other site{'s' if len(causes) > 2 else ''}"
    return where


def _def_span(fn: FunctionInfo, lines: list[str]) -> Comprehension:
    """The `def` line of `fn` as a span (UTF-8 offsets, as ast gives them)."""
    line = fn.def_line or fn.line
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    return Comprehension(line, len(text.encode("utf-8")) - len(text.lstrip().encode("utf-8")), line,
                         len(text.rstrip().encode("utf-8")), False)


def _holds(block: SkipBlock, line: int) -> bool:
    """Whether `line` is in `block`'s body (or, for a loop, its header: a generator iterated there)."""
    return (block.line if block.kind == "loop" else block.body_first) <= line <= block.body_last


def _holds_span(block: SkipBlock, comp: Comprehension) -> bool:
    """Whether `comp` is the generator expression `block` is (or lies inside it)."""
    return block.kind == "genexpr" and block.body_first <= comp.line <= comp.end_line <= block.body_last \
        and (comp.line > block.body_first or comp.offset >= block.columns[0])


def _inside_columns(block: SkipBlock, line: int, column: int | None) -> bool:
    """Whether a break at `line` and 1-based `column` lies inside a generator expression's span
    (SkipBlock.columns; no column known: not inside)."""
    if column is None:
        return False
    start, end = block.columns
    return (line > block.body_first or column - 1 >= start) and (line < block.body_last or column - 1 < end)


def _in_nested(line: int, nested: list[tuple[int, int, int]], column: int | None = None) -> bool:
    """Whether code at `line` (and 1-based `column`, when known) is in one of a frame's nested defs
    or lambdas (DefFrame.nested), not the frame's own: on a lambda's first line, only from the
    lambda's start on (without a column, the whole line)."""
    return any(first < line <= last or (line == first and (start < 0 or column is None or column - 1 >= start))
               for first, last, start in nested)


def _runs_eagerly(f: Finding, spans) -> bool:
    """A predicted graph break or recompile on a line after the break that made Dynamo skip its
    frame (not in a nested def or lambda: those are frames of their own, traced from their
    start). Code run eagerly neither breaks nor installs guards (`self.steps += 1` after a loop
    whose body broke: no recompile, measured on 2.13)."""
    if f.status is not Status.PREDICTED or f.kind not in (*BREAK_KINDS, Kind.RECOMPILE):
        return False
    return any(skip < f.line <= last and not _in_nested(f.line, nested, f.column) and not inside_spans(f.line, arms)
               for skip, last, nested, arms in spans)


def _source_lines(path: str) -> list[str]:
    try:
        text = module_text(path) if is_notebook(path) else unsaved.read_bytes(path).decode("utf-8")
        return source_lines(text or "")
    except (OSError, UnicodeDecodeError):
        return []


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


def _short_place(lines: list[str], comp: Comprehension) -> tuple[int, int, str]:
    """`_place`, with the text on one line and cut to 60 characters (a message's `{code}`)."""
    column, end_column, code = _place(lines, comp)
    code = " ".join(code.split())
    return column, end_column, code if len(code) <= 60 else code[:57] + "..."


def _short(path: str) -> str:
    return Path(path).name
