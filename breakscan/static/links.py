"""Objects of project classes that cross module boundaries, linked once the whole project is indexed.

`index.build_module_info` sees one module: a local bound to `Class(...)` or to a call of one of
the module's own factories, and a parameter that every call in the module passes such an
object, are local instances there (FunctionInfo.local_classes). Users split a program over
files, though: `train.py` builds `meter = RunningMean()` and calls `engine.train_step(model, x,
y, meter)`, and `engine.py` builds `meter = build_meter()` with the factory imported from
`meters.py`. `link_instances` reads those across modules:

- a local bound to a call of a factory of another module (`m = build_meter()`, imported),
  whose every `return` builds one project class (FunctionInfo.returned_class);
- a parameter of a module-level function that every call in the project passes an instance
  of one project class (the calls of every module, the function's own module included, by
  name or through `fast = torch.compile(step)`), unless annotated, bound again, or already an
  instance by its own module.

Each link adds the class, qualified, to the def's `local_classes` and records its method calls
as the class's (`meter.update(x)` -> `proj.meters.RunningMean.update`), as the index does
within a module; Dynamo inlines those methods with the values passed (measured on 2.13 and
2.15: `tests/test_static_bound_objects.py`). The index entries are changed in place and
restored first on the next call (ModuleInfo.unlinked), so a warm language server re-links
from what each file says.
"""

from __future__ import annotations

from breakscan.static.index import FunctionInfo, ModuleInfo, ProjectIndex, add_instances, spelled_module_instances


def link_instances(index: ProjectIndex) -> tuple[tuple[str, str, str, str], ...]:
    """Link the instances that cross modules (module docstring) into `index`'s entries.

    Returns the links made, sorted, as (module, def qualname, local name, qualified class): the
    language server compares them to tell whether a reused region pass still holds."""
    modules = list(index.modules.values())
    for info in modules:
        for fn, classes, calls in info.unlinked:
            fn.local_classes, fn.calls = classes, calls
        info.unlinked = []
    found: dict[tuple[int, int], tuple[ModuleInfo, FunctionInfo, dict[str, str]]] = {}

    def link(info: ModuleInfo, fn: FunctionInfo, name: str, cls: str) -> None:
        if info.qualify(cls) != cls:  # the module names something like the class's package
            return
        found.setdefault((id(info), id(fn)), (info, fn, {}))[2][name] = cls

    for info in modules:  # factories of other modules
        for _, fn in info.all_functions():
            for name, factory in fn.factory_locals.items():
                hit = index.lookup_function(info.qualify(factory))
                if hit is not None and hit[1].returned_class and index.lookup_class(hit[1].returned_class):
                    link(info, fn, name, hit[1].returned_class)
    for info, fn, sites in _passed_across_modules(index, modules):
        for param in fn.params:
            if param in fn.local_classes or param in fn.rebound:
                continue
            classes = {passed.get(param) for passed in sites}
            if len(classes) == 1 and (cls := classes.pop()) and index.lookup_class(cls):
                link(info, fn, param, cls)
    links = []
    for info, fn, added in found.values():
        info.unlinked.append((fn, fn.local_classes, fn.calls))
        add_instances(fn, added)
        links += [(info.name, fn.qualname, name, cls) for name, cls in added.items()]
    return tuple(sorted(links))


def _instances(info: ModuleInfo, fn: FunctionInfo | None) -> dict[str, str]:
    """The local instances of a def (or, for None, the module-level ones), qualified."""
    spelled = spelled_module_instances(info) if fn is None else fn.local_classes
    return {name: info.qualify(cls) for name, cls in spelled.items()}


def _scopes(modules: list[ModuleInfo]):
    """(module, def) for every def of `modules`, after (module, None) for its module-level code."""
    for info in modules:
        yield info, None
        for _, fn in info.all_functions():
            yield info, fn


def _passed_across_modules(index: ProjectIndex, modules: list[ModuleInfo]
                           ) -> list[tuple[ModuleInfo, FunctionInfo, list[dict[str, str | None]]]]:
    """[(module, module-level def, [{parameter: qualified class passed there, or None}, ...])]
    for the defs some call in another module passes a local instance to, with every call of
    them in the project (by name: `train_step(...)`, `engine.train_step(...)`, a compiled alias)."""
    wanted: dict[str, tuple[ModuleInfo, FunctionInfo]] = {}
    for info, fn in _scopes(modules):  # defs of other modules given an instance somewhere
        if not (info.global_instances if fn is None else fn.local_classes):
            continue
        instances = _instances(info, fn)
        for ref in info.top_calls if fn is None else fn.calls:
            key = info.compiled_aliases.get(ref.name, ref.name)
            if ref.kind != "name" or key.partition(".")[0] not in info.imports \
                    or not any(arg in instances for arg in (*ref.args, *(a for _, a in ref.kwargs))):
                continue  # only calls of another module's functions
            target = info.qualify(key)
            if target.rpartition(".")[0] == info.name or target in wanted:
                continue
            hit = index.lookup_function(target)
            if hit is not None and "." not in hit[1].qualname:
                wanted[target] = hit
    if not wanted:
        return []
    short = {target.rpartition(".")[2] for target in wanted}
    homes = {info.name for info, _ in wanted.values()}
    names = homes.union(*(index.importers(home) for home in homes))
    sites: dict[str, list[dict[str, str | None]]] = {}
    for info, fn in _scopes([info for info in modules if info.name in names and short & info.called_names]):
        instances = None
        for ref in info.top_calls if fn is None else fn.calls:
            key = info.compiled_aliases.get(ref.name, ref.name)
            if ref.kind != "name" or key.rpartition(".")[2] not in short:
                continue
            target = info.qualify(key)
            if target not in wanted:
                continue
            if instances is None:
                instances = _instances(info, fn)
            params = wanted[target][1].params
            passed = {params[i]: instances.get(arg) if arg else None for i, arg in enumerate(ref.args) if i < len(params)}
            passed.update((kw, instances.get(arg) if arg else None) for kw, arg in ref.kwargs)
            sites.setdefault(target, []).append(passed)
    return [(*wanted[target], found) for target, found in sites.items()]
