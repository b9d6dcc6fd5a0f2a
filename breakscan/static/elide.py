"""Elide, before the libcst parse, the defs of a file that no region check reads.

Phase B parses a file with libcst only to check its region functions, and libcst's parse is most of
the static pass's cost (README "Speed"). A large file (a transformers `modeling_*.py`) holds many
defs that are not in any compile region: `_init_weights`, `from_pretrained` helpers, configuration
code. `elided_source` replaces each such def (decorators, signature and body) by a `pass` line at
the def's own indentation and the rest of its lines by empty lines. The text keeps every line
number and every column of what stays, so positions, suppression comments and snippets are those of
the file; the libcst tree is then a partial one, for checking only, never printed back as the file.

A def stays when:
- it is, holds, or lies in a region function (`Region.function` line span, from the `ast` index);
- its name is a word of the text that stays (a helper or method the region code may read: its
  return kind, its body), repeated until nothing new stays;
- it is defined more than once under its qualname (the index counts occurrences; `(qualname, n)`
  lookups must find the same def);
- it stores a `self` attribute that the kept text calls, with a lambda in its text (`self.act =
  lambda t: ...`, checked where `self.act(h)` is called), or indexes by an integer literal
  (`self.timesteps = torch.tensor([...])`, whose rank decides `self.timesteps[0]`), or indexes
  at all when it binds the attribute to what a function of this module returns (`self.betas =
  betas_for(n)`: whether `self.betas[t]` indexes a tensor is read from that function's return).

Nothing is elided from a file whose call sites of compiled callables the checks read
(`CallSiteInference.root_call_kinds`: a module-level function compiled as a root, here or imported
from another module, `model = Net()`, `fast = torch.compile(step)`, `breakscan_examples`), since
those calls may sit in any def. A tree shared with the call-site inference of other files
(`engine._SHARED`) is then as good as the whole file for it: their reads are of region functions.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

from breakscan.static.index import ModuleInfo, module_function_calls
from breakscan.static.positions import file_lines
from breakscan.static.regions import Region

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SELF_CALLED = re.compile(r"\bself\.([A-Za-z_][A-Za-z0-9_]*)\s*\(")
_SELF_ELEMENT = re.compile(r"\bself\.([A-Za-z_][A-Za-z0-9_]*)\s*\[\s*-?\d+\s*\]")
_SELF_SUBSCRIPT = re.compile(r"\bself\.([A-Za-z_][A-Za-z0-9_]*)\s*\[")
_LAMBDA = re.compile(r"\blambda\b")
_INDENT = re.compile(r"[ \t\f]*")
_NEWLINE = re.compile(r"(?:\r\n|\r|\n)$")


def elided_source(source: str, info: ModuleInfo, regions: Iterable[Region],
                  roots: Collection[str] = ()) -> str | None:
    """`source` (the decoded text of the file `info` indexes) with the defs no check of
    `regions` (this file's region functions) reads replaced as the module docstring says, or
    None when nothing is elided or the file's call sites of compiled callables are read
    (`roots`: the project's compiled module-level functions, qualified). Line numbers
    (CPython's count) and columns of the kept text are unchanged. Never raises on indexed text."""
    regions = list(regions)
    if not regions or _reads_call_sites(info, regions, roots):
        return None
    spans = [(r.function.line, r.function.end_line) for r in regions if r.function.end_line]
    candidates = []
    for fn in _defs(info):
        if fn.occurrence or not fn.end_line or fn.line > fn.end_line:
            continue
        if any(fn.line <= end and start <= fn.end_line for start, end in spans):
            continue  # a region function, or holds or lies in one
        candidates.append(fn)
    if not candidates:
        return None
    lines = file_lines(source)
    candidates.sort(key=lambda fn: (fn.line, -fn.end_line))
    outer: list = []  # outermost candidates only: a method of a class nested in an elided def goes with it
    for fn in candidates:
        if outer and fn.end_line <= outer[-1].end_line:
            continue
        outer.append(fn)
    elided = _unreferenced(lines, outer, _helper_bound(info))
    if not elided:
        return None
    for fn in elided:
        first = lines[fn.line - 1]
        lines[fn.line - 1] = _INDENT.match(first).group() + "pass" + _newline(first)
        for i in range(fn.line, fn.end_line):
            lines[i] = _newline(lines[i])
    return "".join(lines)


def _reads_call_sites(info: ModuleInfo, regions: list[Region], roots: Collection[str]) -> bool:
    if info.var_classes or info.compiled_aliases or info.compile_targets or info.example_targets:
        return True
    if any(len(r.chain) <= 1 and r.cls is None for r in regions):
        return True
    # A module importing a compiled function: its calls of it (`_imported_root_sites`) may sit in any def.
    return any(root == imported or root.startswith(imported + ".")
               for imported in set(info.imports.values()) for root in roots)


def _defs(info: ModuleInfo) -> list:
    """Every def the index holds: module-level, nested compiled ones, and class methods."""
    found = list(info.functions.values())
    for cls in info.classes.values():
        found.extend(cls.methods.values())
    return found


def _helper_bound(info: ModuleInfo) -> frozenset[str]:
    """Attributes some class binds only to what functions of this module return (the index's
    submodules: every call's result is recorded there)."""
    return frozenset(attr for cls in info.classes.values() for attr, held in cls.submodules.items()
                     if module_function_calls(info, held))


def _unreferenced(lines: list[str], candidates: list, helper_bound: frozenset[str] = frozenset()) -> list:
    """The candidates whose name is no word of the text that stays (to a fixpoint)."""
    inside = [False] * (len(lines) + 1)
    for fn in candidates:
        for i in range(fn.line - 1, min(fn.end_line, len(lines))):
            inside[i] = True
    text = "".join(line for i, line in enumerate(lines) if not inside[i])
    words = set(_WORD.findall(text))
    called, indexed = set(_SELF_CALLED.findall(text)), set(_SELF_ELEMENT.findall(text))
    if helper_bound:
        indexed.update(helper_bound & set(_SELF_SUBSCRIPT.findall(text)))

    stores = {id(fn): {a[len("self."):] for a in fn.attr_stores if a.startswith("self.")} for fn in candidates}
    lambdas = {id(fn) for fn in candidates if stores[id(fn)] and says_lambda(lines, fn)}

    def read(fn) -> bool:
        stored = stores[id(fn)]
        return fn.name in words or bool(stored & indexed) or (id(fn) in lambdas and bool(stored & called))

    pending = list(candidates)
    while True:
        kept = [fn for fn in pending if read(fn)]
        if not kept:
            return pending
        pending = [fn for fn in pending if fn not in kept]
        for fn in kept:
            body = "".join(lines[fn.line - 1:fn.end_line])
            words.update(_WORD.findall(body))
            called.update(_SELF_CALLED.findall(body))
            indexed.update(_SELF_ELEMENT.findall(body))
            if helper_bound:
                indexed.update(helper_bound & set(_SELF_SUBSCRIPT.findall(body)))


def says_lambda(lines: list[str], fn) -> bool:
    """Whether a line of the def `fn` (an index FunctionInfo: `line`..`end_line`, 1-based) of the
    module `lines` says `lambda`: a cheap test before walking it for a lambda it stores."""
    return any(_LAMBDA.search(line) for line in lines[fn.line - 1:fn.end_line])


def _newline(line: str) -> str:
    found = _NEWLINE.search(line)
    return found.group() if found else ""
