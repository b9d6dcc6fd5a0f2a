"""The rule matcher: one walker over a module's compile-region code, driven by `rules/`.

A rule's `[match]` table says what it matches: `calls` (qualified callee names, fnmatch globs),
`tensor_methods` (methods called on a tensor), `logger_methods` (methods of a logger object), or
`check` (a named structural check implemented in this package, IMPLEMENTED_CHECKS).

One walker (visitor.RegionVisitor) does one pass; the checks it runs live by family:

- control_flow.py: `if`/`while`/`assert` tests, `and`/`or`/`not`, `with` items;
- calls.py: rule lookups on calls and methods, scalar conversions, sizes, hooks, `print`;
- call_patterns.py: what a call is given or called on (`one_hot` without `num_classes`,
  `requires_grad=True` factories, `torch._check` messages, sorting tensors, RNN / TorchScript /
  backward-hooked submodules, `torch.Generator` objects), and `class` statements in a region;
- mutation.py: assignments to module state, `requires_grad`, `__class__`, `.data`, `.real`,
  rebound globals;
- operators.py: comparisons, subscripts (mask indexing), binary operations;
- arrays.py: attributes of NumPy arrays Dynamo does not trace (`.dtype`, `.flags`, `.base`);
- call_sites.py: parameter kinds from call sites, return kinds of called functions;
- binding.py: kinds of parameters, assignment targets and returns;
- rule_index.py: the catalog's match tables; errors.py: rules at risk when a check raises.
"""

from breakscan.static.checks.errors import IMPLEMENTED_CHECKS, METHOD_CHECKS, rules_at_risk
from breakscan.static.checks.rule_index import Hit, RuleIndex
from breakscan.static.checks.visitor import CheckError, RegionVisitor

__all__ = ["IMPLEMENTED_CHECKS", "METHOD_CHECKS", "CheckError", "Hit", "RegionVisitor", "RuleIndex",
           "rules_at_risk"]
