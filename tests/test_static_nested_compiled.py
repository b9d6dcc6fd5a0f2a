"""A def nested in a function or test method and compiled there (`opt_fn = torch.compile(fn,
backend=cnt)`, `torch._dynamo.optimize("eager")(fn)`, `torch.compile(fn)(x)` applied at once,
`@torch.compile` on the nested def, or `torch._dynamo.explain(fn)(x)`, which traces it alike) is a compile region, as Dynamo's own tests write them;
so are the other defs of that method it calls. Its parameters take the kinds the enclosing
method's calls pass (`opt_fn(x, 3)`: an int, so `range(n)` is traced). Checked by running the
test file under `breakscan run` against Dynamo."""

from __future__ import annotations

import pytest

from tests.conftest import break_statuses, requires_torch, run_findings, static_findings, write_files

TESTS = '''
import unittest

import torch
import torch._dynamo


class MiscTests(unittest.TestCase):
    def test_item(self):
        def fn(x):
            y = x.sum()
            return x + y.item()

        opt_fn = torch.compile(fn, backend="eager")
        opt_fn(torch.ones(3))

    def test_optimize(self):
        def fn(a, b):
            if a.sum() > 0:
                return a + b
            return a - b

        opt_fn = torch._dynamo.optimize("eager")(fn)
        opt_fn(torch.ones(3), torch.ones(3))

    def test_decorated(self):
        @torch.compile(backend="eager")
        def fn(x):
            print("hi")
            return x * 2

        fn(torch.ones(2))

    def test_int_argument(self):
        def fn(x, n):
            for _ in range(n):
                x = x + 1
            return x

        torch.compile(fn, backend="eager")(torch.ones(2), 3)

    def test_helper(self):
        def helper(t):
            return t.tolist()

        def fn(x):
            return helper(x)

        torch.compile(fn, backend="eager")(torch.ones(2))

    def test_explain(self):
        def fn(x, name):
            if name.startswith("a"):
                print("explain me")
            return x + 1

        torch._dynamo.explain(fn)(torch.ones(3), "abc")

    def test_not_compiled(self):
        def fn(x):
            return x.tolist()

        fn(torch.ones(2))


if __name__ == "__main__":
    unittest.main()
'''


def test_nested_compiled_defs_are_regions(tmp_path):
    found = {(f.rule_id, f.line) for f in static_findings(tmp_path, {"test_misc.py": TESTS}, regions="explicit")}
    for expected in (("BRK102", 12), ("BRK101", 19), ("BRK201", 29), ("BRK103", 44), ("BRK201", 54)):
        assert expected in found, (expected, found)
    assert not {f for f in found if f[0] == "BRK107"}, found  # range(n): the call passes 3
    assert ("BRK101", 53) not in found, found  # name.startswith: a str
    assert ("BRK103", 61) not in found, found  # never compiled


@pytest.mark.dynamic
@requires_torch
def test_dynamo_confirms_breaks_in_nested_compiled_defs(tmp_path):
    write_files(tmp_path, {"test_misc.py": TESTS})
    found = break_statuses(run_findings(tmp_path, "test_misc.py"))
    for rule, line in (("BRK102", 12), ("BRK101", 19), ("BRK201", 29), ("BRK103", 44), ("BRK201", 54)):
        assert (rule, "test_misc.py", line, "confirmed") in found, found
    assert not {f for f in found if f[3] in ("refuted", "observed")}, found
