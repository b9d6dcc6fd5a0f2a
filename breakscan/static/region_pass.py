"""The region pass: compile regions and their Dynamo settings over the whole project index.

`compute_regions` computes them whole (breakscan.static.regions.RegionFinder, then
breakscan.static.dynamo_settings.SettingsResolver): what every CLI run does. On a tree of
thousands of files that is seconds of CPU (installed transformers, 2,860 files: 2.4 s of the
regions, 0.5 s of the settings, measured with bench/lsp_latency.py), too slow for an editor's
every keystroke.

`IncrementalRegions` is the warm language server's: it keeps the last results and reuses them
when the files that changed since cannot move them, which is exact (the same regions, chains,
call sites and settings as a whole computation on the new index; tests/test_region_pass.py
compares the two over sequences of edits), and computes them whole otherwise. An edit cannot
move them when every changed file

- keeps its module name, its place in the index and everything the region pass reads from it
  but the bodies of its functions: imports, classes (bases, methods, submodules, attributes),
  decorators, module variables, compile targets and aliases, disables, Dynamo settings; and
- changes the bodies (calls, parameters, `self.x` reads) only of functions the last pass never
  traced or passed through (a function that is no region and no skipped frame is never read
  again: what reaches it is unchanged); and
- adds or removes only undecorated functions and methods whose name no file of the project
  mentions (no call, import, base, target or parameter could have looked it up).

Positions (lines, indents, try blocks) never move regions: a reused region gets the changed
file's new FunctionInfo, so phase B and the cross-file frame pass see the new lines.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from breakscan.static.dynamo_settings import DynamoSettings, SettingsResolver, environment_settings
from breakscan.static.index import ClassInfo, FunctionInfo, ModuleInfo, ProjectIndex
from breakscan.static.links import link_instances
from breakscan.static.regions import Region, RegionFinder, RegionKey


@dataclass
class RegionPass:
    """The region pass's results: the finder that computed them (call resolution, traced call
    sites), every traced function by key, and each one's effective Dynamo settings."""

    finder: RegionFinder
    regions: dict[RegionKey, Region]
    settings: dict[RegionKey, DynamoSettings]


RegionPassFn = Callable[[ProjectIndex, str, "dict | None"], RegionPass]


def compute_regions(index: ProjectIndex, mode: str = "modules", dynamo_config: dict | None = None) -> RegionPass:
    """The whole region pass over `index` (`mode`: "modules" or "explicit", as `[tool.breakscan]
    regions`; `dynamo_config`: the checked `dynamo-config` table). Raises ValueError for a bad mode."""
    link_instances(index)
    return _computed(index, mode, dynamo_config)


def _computed(index: ProjectIndex, mode: str, dynamo_config: dict | None) -> RegionPass:
    """compute_regions on an index whose instances are linked already."""
    finder = RegionFinder(index, mode)
    regions = finder.compute()
    resolver = SettingsResolver(finder, regions, dynamo_config)
    return RegionPass(finder, regions, {key: resolver.for_region(region) for key, region in regions.items()})


# What the region pass reads of a function beyond its name and decorators: its body's facts.
BODY_FIELDS = frozenset({"calls", "params", "self_reads", "sub_reads"})
# Fields the region pass never reads: where a function is, and what only phase B and the frame
# pass read, from the new index (`returns`: callers' inferred kinds; part of their cache keys).
POSITION_FIELDS = frozenset({"line", "end_line", "indent", "def_line", "frames", "returns"})
# Names the region pass looks up without any file mentioning them.
SPECIAL_NAMES = frozenset({"forward", "__call__", "__init__", "breakscan_examples"})
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _plain(value: Any) -> Any:
    """A hashable, comparable copy of an index value (dataclasses by field, dicts in order)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if isinstance(value, FunctionInfo):
            return _function_facts(value)[0]
        return (type(value).__name__, tuple((f.name, _plain(getattr(value, f.name)))
                                            for f in dataclasses.fields(value)))
    if isinstance(value, dict):
        return tuple((k, _plain(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return tuple(_plain(v) for v in value)
    if isinstance(value, (set, frozenset)):
        return frozenset(_plain(v) for v in value)
    if isinstance(value, PurePath):
        return str(value)
    return value


def _function_facts(fn: FunctionInfo) -> tuple[tuple, tuple]:
    """(shape, body) of a function: the fields the region pass reads of every function
    (name, decorators, any field added later), and those it reads only of traced ones."""
    shape, body = [], []
    for f in dataclasses.fields(fn):
        if f.name in POSITION_FIELDS:
            continue
        (body if f.name in BODY_FIELDS else shape).append((f.name, _plain(getattr(fn, f.name))))
    return tuple(shape), tuple(body)


@dataclass
class ModuleFacts:
    """What the region pass reads of one module, positions left out: `rest` (every field but its
    functions and classes), each class's own fields (methods left out) and, per function and
    method (by `Class.name` or `name`), its shape and body (`_function_facts`); and `names`, every
    identifier its references mention (calls, imports, bases, targets, parameters...), the names
    it defines left out."""

    rest: tuple
    classes: tuple
    functions: dict[str, tuple[tuple, tuple]]
    names: frozenset[str] = field(default_factory=frozenset)


def module_facts(info: ModuleInfo) -> ModuleFacts:
    """The ModuleFacts of `info`."""
    rest = tuple((f.name, _plain(getattr(info, f.name))) for f in dataclasses.fields(info)
                 if f.name not in ("functions", "classes"))
    classes = tuple((name, tuple((f.name, _plain(getattr(cls, f.name))) for f in dataclasses.fields(cls)
                                 if f.name != "methods")) for name, cls in info.classes.items())
    functions = {name: _function_facts(fn) for name, fn in info.functions.items()}
    for cls_name, cls in info.classes.items():
        functions.update((f"{cls_name}.{name}", _function_facts(fn)) for name, fn in cls.methods.items())
    return ModuleFacts(rest, classes, functions, module_names(info))


def module_names(info: ModuleInfo) -> frozenset[str]:
    """Every identifier in the strings of `info` (its references: calls, imports, bases, targets,
    parameters, settings), the names and qualnames of its functions left out (its definitions)."""
    strings: set[str] = set()
    _strings(info, strings)
    names: set[str] = set()
    for text in strings:
        names.update(_IDENTIFIER.findall(text))
    return frozenset(names)


def _strings(value: Any, out: set[str]) -> None:
    if isinstance(value, str):
        out.add(value)
    elif isinstance(value, FunctionInfo):
        for f in dataclasses.fields(value):
            if f.name not in ("name", "qualname") and f.name not in POSITION_FIELDS:
                _strings(getattr(value, f.name), out)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            _strings(getattr(value, f.name), out)
    elif isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(v, FunctionInfo):  # functions and methods by name: their definitions
                _strings(k, out)
            _strings(v, out)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            _strings(item, out)


@dataclass
class _Pass:
    """One region pass and the index it ran on: modules in index order, with their facts."""

    key: tuple
    modules: list[tuple[str, ModuleInfo]]
    result: RegionPass
    read: set[RegionKey]  # functions whose bodies the pass read: regions and skipped frames
    links: tuple  # links.link_instances on its index: instances that cross modules


class IncrementalRegions:
    """A RegionPassFn that keeps its last few passes and reuses one whenever the files changed
    since cannot move its results (see the module docstring); a whole computation otherwise.

    `history`: passes kept (a file that fails to parse while typed drops out of the index; when
    it parses again as before, the pass from before the error is reused). `reused` and
    `computed` count the two outcomes (for tests and benchmarks).
    """

    def __init__(self, history: int = 3) -> None:
        self.history = history
        self._passes: list[_Pass] = []  # newest first
        self._facts: dict[int, tuple[ModuleInfo, ModuleFacts]] = {}  # id(info) -> (info, facts): changed files
        self._names: dict[int, tuple[ModuleInfo, frozenset[str]]] = {}  # id(info) -> (info, names): every file
        self.reused = 0
        self.computed = 0

    def __call__(self, index: ProjectIndex, mode: str = "modules", dynamo_config: dict | None = None) -> RegionPass:
        key = (mode, repr(sorted((dynamo_config or {}).items())), repr(sorted(environment_settings().items())))
        modules = list(index.modules.items())
        links = link_instances(index)  # what other files pass or build decides what a def holds
        for previous in self._passes:
            if previous.key == key and previous.links == links and self._reusable(previous, modules):
                result = self._remapped(previous, index, modules)
                self.reused += 1
                break
        else:
            result = _computed(index, mode, dynamo_config)  # linked above
            self.computed += 1
        read = set(result.regions) | set(result.finder._skipped)
        self._passes = [_Pass(key, modules, result, read, links), *self._passes][: self.history]
        live = {id(info) for p in self._passes for _, info in p.modules}
        self._facts = {k: v for k, v in self._facts.items() if k in live}
        self._names = {k: v for k, v in self._names.items() if k in live}
        return result

    def prepare(self) -> None:
        """Work out now, while the server is idle, the names every file of the last pass
        mentions (1.2 s on 2,860 files), which the first added or removed function asks for."""
        for _, info in self._passes[0].modules if self._passes else ():
            self.names(info)

    def facts(self, info: ModuleInfo) -> ModuleFacts:
        """`module_facts(info)`, computed once per index entry."""
        kept = self._facts.get(id(info))
        if kept is None or kept[0] is not info:
            kept = self._facts[id(info)] = (info, module_facts(info))
        return kept[1]

    def names(self, info: ModuleInfo) -> frozenset[str]:
        """`module_facts(info).names`, computed once per index entry (only the names are kept)."""
        kept = self._names.get(id(info))
        if kept is None or kept[0] is not info:
            facts = self._facts.get(id(info))
            names = facts[1].names if facts is not None and facts[0] is info else module_names(info)
            kept = self._names[id(info)] = (info, names)
        return kept[1]

    def _reusable(self, previous: _Pass, modules: list[tuple[str, ModuleInfo]]) -> bool:
        if len(modules) != len(previous.modules):
            return False
        changed = []
        for (name, info), (old_name, old) in zip(modules, previous.modules):
            if info is old:
                continue
            if name != old_name or info.path != old.path:
                return False
            changed.append((old, info))
        return all(self._same_reach(previous, old, new, modules) for old, new in changed)

    def _same_reach(self, previous: _Pass, old_info: ModuleInfo, new_info: ModuleInfo,
                    modules: list[tuple[str, ModuleInfo]]) -> bool:
        """Whether replacing `old_info` by `new_info` cannot move `previous`'s results."""
        old, new = self.facts(old_info), self.facts(new_info)
        if old.rest != new.rest or old.classes != new.classes:
            return False
        path = str(new_info.path)
        added_or_removed = []
        for name in old.functions.keys() | new.functions.keys():
            before, after = old.functions.get(name), new.functions.get(name)
            if before == after:
                continue
            if before is not None and after is not None:
                if before[0] != after[0] or self._was_read(previous, path, before, name):
                    return False  # its decorators or other shape changed, or a traced body did
                continue
            added_or_removed.append((name, before or after))
        if added_or_removed and not self._unmentioned(added_or_removed, previous, path, old, new, old_info, modules):
            return False
        return _same_order(old.functions, new.functions, {n for n, _ in added_or_removed})

    @staticmethod
    def _was_read(previous: _Pass, path: str, facts: tuple[tuple, tuple], name: str) -> bool:
        shape = dict(facts[0])
        return (path, shape.get("qualname", name), shape.get("occurrence", 0)) in previous.read

    def _unmentioned(self, items: list, previous: _Pass, path: str, old: ModuleFacts, new: ModuleFacts,
                     old_info: ModuleInfo, modules: list[tuple[str, ModuleInfo]]) -> bool:
        """Whether every added or removed function is undecorated, was never traced, and its
        name is mentioned by no file (so that no lookup of the region pass could find it)."""
        names = set()
        for name, facts in items:
            shape = dict(facts[0])
            short = name.rpartition(".")[2]
            if shape.get("decorators") or short in SPECIAL_NAMES or short.startswith("__") \
                    or self._was_read(previous, path, facts, name):
                return False
            names.add(short)
        if names & (old.names | new.names):
            return False
        return not any(names & self.names(info) for _, info in modules if info.path != old_info.path)

    def _remapped(self, previous: _Pass, index: ProjectIndex, modules: list[tuple[str, ModuleInfo]]) -> RegionPass:
        """`previous`'s results with the changed modules' new ModuleInfo, ClassInfo and
        FunctionInfo objects in place of the old ones, and a finder over the new index."""
        swap: dict[int, Any] = {}
        for (_, info), (_, old) in zip(modules, previous.modules):
            if info is not old:
                swap[id(old)] = info
                for name, cls in old.classes.items():
                    swap[id(cls)] = info.classes[name]
                    swap.update((id(fn), info.classes[name].methods[m]) for m, fn in cls.methods.items()
                                if m in info.classes[name].methods)
                swap.update((id(fn), info.functions[n]) for n, fn in old.functions.items() if n in info.functions)
        old = previous.result
        regions = {key: _swapped(region, swap) for key, region in old.regions.items()}
        finder = RegionFinder(index, old.finder.mode)
        finder.regions = regions
        finder.callers = old.finder.callers
        finder._skipped = old.finder._skipped
        finder._contexts = old.finder._contexts
        return RegionPass(finder, regions, old.settings)


def _swapped(region: Region, swap: dict[int, Any]) -> Region:
    """`region` with its module, class, function and class of `self` swapped as `swap` says."""
    if id(region.module) in swap:
        return dataclasses.replace(region, module=swap[id(region.module)], cls=swap.get(id(region.cls), region.cls),
                                   function=swap[id(region.function)],
                                   dispatch=swap.get(id(region.dispatch), region.dispatch))
    if region.dispatch is not None and id(region.dispatch) in swap:
        return dataclasses.replace(region, dispatch=swap[id(region.dispatch)])
    return region


def _same_order(old: dict, new: dict, ignored: set[str]) -> bool:
    """Whether the functions both have list in the same order (roots are found in that order)."""
    return [n for n in old if n not in ignored] == [n for n in new if n not in ignored]
