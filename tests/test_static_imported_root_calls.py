"""A compiled function's parameters take the kinds of the calls that the scanned modules
importing it make (`from pkg.engine import eval_step`, `engine.train_step(x, step, ids)`, a
compiled alias `fast_eval = torch.compile(eval_step)`), as they take those of its own module's
calls: an int passed at every call makes `range(repeats)` traced, a tensor passed at every call
makes `3 in ids` a break. Checked with `breakscan run` against Dynamo; the cache is keyed on the
importing file."""

from __future__ import annotations

import pytest

from tests.conftest import (
    assert_dynamo_confirms, break_statuses, cli_findings,
    requires_torch, run_findings, static_findings, write_files,
)

PACKAGE = {
    "pkg/__init__.py": "",
    "pkg/engine.py": '''
        import torch


        @torch.compile
        def train_step(x, step, ids):
            y = x * 2
            if step % 100 == 0:
                y = y + 1
            if 3 in ids:
                y = y - 1
            return y


        def eval_step(x, repeats):
            for _ in range(repeats):
                x = x + 1
            return x
        ''',
    "train.py": '''
        import torch

        from pkg import engine
        from pkg.engine import eval_step

        fast_eval = torch.compile(eval_step)


        def main():
            x = torch.randn(4)
            ids = torch.tensor([1, 2, 3])
            for step in range(3):
                engine.train_step(x, step, ids)
            fast_eval(x, 2)


        if __name__ == "__main__":
            main()
        ''',
}


def _located(findings) -> set[tuple[str, int]]:
    return {(f.rule_id, f.line) for f in findings if f.path.endswith("engine.py")}


def test_the_importers_calls_give_the_parameters_kinds(tmp_path):
    # `step` is train.py's loop counter: a number that changes between calls (BRK502, a recompile)
    assert _located(static_findings(tmp_path, PACKAGE, regions="explicit")) == {("BRK259", 10), ("BRK502", 8)}


def test_a_call_the_walk_cannot_see_keeps_the_convention(tmp_path):
    files = dict(PACKAGE)  # eval_step passed as a value too: its calls there are not seen
    files["train.py"] = PACKAGE["train.py"].replace("fast_eval(x, 2)", "fast_eval(x, 2)\n            print(eval_step)")
    found = _located(static_findings(tmp_path, files, regions="explicit"))
    assert ("BRK107", 16) in found, found  # `range(repeats)`: a tensor by the root convention


@pytest.mark.dynamic
@requires_torch
def test_dynamo_agrees_with_the_importers_calls(tmp_path):
    write_files(tmp_path, PACKAGE)
    found = break_statuses(run_findings(tmp_path, "train.py"))
    assert_dynamo_confirms(found, [("BRK259", "engine.py", 10)])


def test_cache_follows_the_importing_file(tmp_path):
    """Editing only train.py changes what eval_step's parameter is: engine.py's cached findings
    must not be reused."""
    write_files(tmp_path, PACKAGE)
    cache = tmp_path / "cache"
    first = cli_findings(tmp_path, "check", ".", "--no-dynamic", cache=cache)
    assert not any(f["rule_id"] == "BRK107" for f in first), first
    train = tmp_path / "train.py"
    train.write_text(train.read_text().replace("fast_eval(x, 2)", "fast_eval(x, torch.tensor(2))"))
    second = cli_findings(tmp_path, "check", ".", "--no-dynamic", cache=cache)
    assert any(f["rule_id"] == "BRK107" and f["path"].endswith("engine.py") for f in second), second


def test_more_importers_than_are_read_leave_the_convention(tmp_path):
    from breakscan.static.checks.call_sites import IMPORTERS_READ_MAX

    files = dict(PACKAGE)  # every importer passes an int: read, they would make `range(repeats)` traced
    files.update({f"user{i}.py": "import torch\nfrom pkg.engine import eval_step\n\n"
                                 "fast = torch.compile(eval_step)\nfast(torch.ones(2), 2)\n"
                  for i in range(IMPORTERS_READ_MAX)})
    found = _located(static_findings(tmp_path, files, regions="explicit"))
    assert ("BRK107", 16) in found, found  # train.py and the others: one importer over the limit
    del files["user0.py"]
    found = _located(static_findings(tmp_path, files, regions="explicit"))
    assert ("BRK107", 16) not in found, found
