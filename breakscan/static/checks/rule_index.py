"""The catalog's `[match]` tables indexed for the walker, and what a match records (`Hit`)."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass

import libcst as cst

from breakscan.catalog import Rule
from breakscan.static.regions import Region


@dataclass(frozen=True)
class Hit:
    """A rule matched at a node, before positions are resolved."""

    rule: Rule
    node: cst.CSTNode
    region: Region  # the region function being walked (the node lies inside it)
    function: cst.FunctionDef  # that function's libcst node
    guard: cst.BaseExpression | None = None  # the test the node runs behind (`a and <node>`, `<node> if a else b`)
    # (first line, last line, indent) of `function` when it is not the region function: the
    # method holding a lambda stored on `self` that the region calls (RegionVisitor.leave_Call)
    extent: tuple[int, int, int] | None = None
    # inside an `except` handler: code that runs only when its `try` body raises, which Dynamo
    # does not trace unless tracing raised (frames.SkippedFrames: it skips no frame)
    in_handler: bool = False


class RuleIndex:
    """The catalog's `[match]` tables, indexed for the visitor."""

    def __init__(self, rules: list[Rule]) -> None:
        self.calls: list[tuple[str, Rule]] = []  # every `calls` pattern, in catalog order
        self._exact_calls: dict[str, list[tuple[int, Rule]]] = {}  # plain names, by name
        self._glob_calls: list[tuple[int, str, Rule]] = []  # `time.*`, `*.elapsed_time`: fnmatch
        self.tensor_methods: dict[str, list[Rule]] = {}
        self.logger_methods: dict[str, list[Rule]] = {}
        self.checks: dict[str, list[Rule]] = {}
        self._call_memo: dict[str, list[Rule]] = {}
        self.fixable = frozenset(r.id for r in rules if r.autofix is not None)  # rules with a rewrite
        for rule in rules:
            match = rule.match
            for pattern in match.get("calls", ()):
                order = len(self.calls)
                self.calls.append((pattern, rule))
                if any(c in pattern for c in "*?["):
                    self._glob_calls.append((order, pattern, rule))
                else:
                    self._exact_calls.setdefault(pattern, []).append((order, rule))
            for meth in match.get("tensor_methods", ()):
                self.tensor_methods.setdefault(meth, []).append(rule)
            for meth in match.get("logger_methods", ()):
                self.logger_methods.setdefault(meth, []).append(rule)
            if "check" in match:
                self.checks.setdefault(match["check"], []).append(rule)

    def rules_for_call(self, qualname: str) -> list[Rule]:
        """Rules whose `calls` patterns match a qualified callee name (memoized per name)."""
        found = self._call_memo.get(qualname)
        if found is None:  # a dict lookup for plain names, fnmatch only for the few globs
            hits = [*self._exact_calls.get(qualname, ()),
                    *((order, rule) for order, pattern, rule in self._glob_calls
                      if fnmatch.fnmatchcase(qualname, pattern))]
            found = self._call_memo[qualname] = [rule for _, rule in sorted(hits, key=lambda hit: hit[0])]
        return found
