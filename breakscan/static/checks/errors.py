"""Which rules a failing visit_ method of the walker may have missed (for BRK900 findings)."""

from __future__ import annotations

from breakscan.static.checks import arrays, call_patterns, calls, control_flow, mutation, operators, sparse_flow
from breakscan.static.checks.rule_index import RuleIndex

# Which structural checks each visit_ method runs (the rules an exception there could lose);
# methods not listed here only track scopes and types, which every rule of the function uses.
METHOD_CHECKS: dict[str, tuple[str, ...]] = {}
for _family in (control_flow, calls, call_patterns, mutation, operators, sparse_flow, arrays):
    for _method, _checks in _family.METHOD_CHECKS.items():
        METHOD_CHECKS[_method] = METHOD_CHECKS.get(_method, ()) + _checks
IMPLEMENTED_CHECKS = frozenset(check for checks in METHOD_CHECKS.values() for check in checks)


def rules_at_risk(method: str, rules: RuleIndex) -> list[str]:
    """Ids of the rules a failure in `method` may have missed (empty: scope/type tracking)."""
    ids = {rule.id for check in METHOD_CHECKS.get(method, ()) for rule in rules.checks.get(check, ())}
    if method == "visit_Call":  # also the `calls`, `tensor_methods` and `logger_methods` rules
        ids |= {rule.id for _, rule in rules.calls}
        ids |= {rule.id for group in (*rules.tensor_methods.values(), *rules.logger_methods.values())
                for rule in group}
    return sorted(ids)
