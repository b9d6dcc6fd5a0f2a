"""Several targets in one child: ordering, crash recovery (re-run the rest), largest split."""

from __future__ import annotations

import importlib.util
import textwrap
from pathlib import Path

import pytest

from breakscan.dynamic.runner import largest_split, run_dynamic_many, split_records

pytestmark = pytest.mark.versions


def test_split_records_groups_by_target_and_keeps_start() -> None:
    records = [{"type": "start", "device": "cpu"}, {"type": "target_start", "index": 0}, {"type": "break"},
               {"type": "done", "index": 0}, {"type": "target_start", "index": 2}, {"type": "entry_start"}]
    start, groups = split_records(records)
    assert start["device"] == "cpu"
    assert [r["type"] for r in groups[0]] == ["break", "done"] and [r["type"] for r in groups[2]] == ["entry_start"]


def brk(line: int) -> dict:
    return {"break": {"gb_type": "t", "gb_id": f"GB{line:04d}", "path": "m.py", "line": line}}


def test_largest_split_is_the_break_that_ends_or_starts_the_largest_graph() -> None:
    # Dynamo logs a break, then compiles the graph that ends at it.
    assert largest_split([brk(10), {"graph": 0, "ops": 2}, brk(20), {"graph": 1, "ops": 9}, {"graph": 2, "ops": 1}])["line"] == 20
    # The largest graph ends at a return: the last break before it started it.
    assert largest_split([brk(10), {"graph": 0, "ops": 2}, {"graph": 1, "ops": 7}])["line"] == 10
    # A break next to an empty graph at the top (nothing compiled before it).
    assert largest_split([brk(3), {"graph": 0, "ops": 5}])["line"] == 3
    assert largest_split([{"graph": 0, "ops": 5}]) is None and largest_split([]) is None


@pytest.mark.dynamic
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed (dynamic extra)")
def test_child_death_reports_the_target_and_reruns_the_rest(tmp_path: Path) -> None:
    def sample(name: str, body: str) -> tuple[Path, None]:
        path = tmp_path / f"{name}.py"
        path.write_text("import os, time\nimport torch\n\n\n" + textwrap.dedent(body), encoding="utf-8")
        return path, None

    targets = [
        sample("a_item", """
            def f(x):
                return x * x.sum().item()

            def breakscan_examples():
                yield f, (torch.ones(3),)
            """),
        sample("b_exit", """
            def g(x):
                os._exit(3)

            def breakscan_examples():
                yield g, (torch.ones(3),)
            """),
        sample("c_hang", """
            def h(x):
                while True:
                    time.sleep(0.05)

            def breakscan_examples():
                yield h, (torch.ones(3),)
            """),
        sample("d_print", """
            def k(x):
                print("k")
                return x + 1

            def breakscan_examples():
                yield k, (torch.ones(3),)
            """),
    ]
    seen = []
    results = run_dynamic_many(targets, project_root=tmp_path, timeout=20, progress=seen.append)
    assert len(results) == 4
    a, b, c, d = ([f.rule_id for f in r.findings] for r in results)
    assert a == ["GB0124"]
    # (os._exit and time.sleep are themselves graph breaks, GB0007, before the child goes.)
    [b_crash] = [f for f in results[1].findings if f.rule_id == "BRK903"]
    assert "exited with status 3" in b_crash.message and set(b) == {"GB0007", "BRK903"}
    [c_crash] = [f for f in results[2].findings if f.rule_id == "BRK903"]
    assert c_crash.extra["timed_out"] is True and "timed out after 20 s" in c_crash.message
    assert d == ["GB0059"]  # ran in a third child, after the hang was killed
    assert results[0].device == results[3].device == "cpu"
    assert [r["index"] for r in seen if r["type"] == "done"] == [0, 3]


@pytest.mark.dynamic
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed (dynamic extra)")
def test_device_auto_is_passed_to_examples(tmp_path: Path) -> None:
    import torch  # only to know what `auto` must pick here

    path = tmp_path / "dev.py"
    path.write_text(textwrap.dedent("""
        import torch

        def f(x):
            return x + 1

        def breakscan_examples(device):
            if str(device) != ("cuda" if torch.cuda.is_available() else "cpu"):
                raise ValueError(f"got device {device!r}")
            yield f, (torch.ones(2, device=device),)
        """), encoding="utf-8")
    [result] = run_dynamic_many([(path, None)], project_root=tmp_path, device="auto")
    assert result.findings == [] and result.device == ("cuda" if torch.cuda.is_available() else "cpu")
    assert [e.calls for e in result.entries] == [1]


@pytest.mark.dynamic
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed (dynamic extra)")
def test_a_setting_one_target_adds_to_does_not_leak_into_the_next(tmp_path: Path) -> None:
    """`reorderable_logging_functions.add(print)` in one file is that file's: the next file in the
    same child still breaks on its print (the demo's print_loss.fixed.py ran before print_loss.py)."""
    (tmp_path / "a_fixed.py").write_text(textwrap.dedent("""\
        import torch

        torch._dynamo.config.reorderable_logging_functions.add(print)


        def f(x):
            print("loss", x)
            return x * 2


        def breakscan_examples():
            yield f, (torch.ones(3),)
        """), encoding="utf-8")
    (tmp_path / "b_plain.py").write_text(textwrap.dedent("""\
        import torch


        def g(x):
            print("loss", x)
            return x * 2


        def breakscan_examples():
            yield g, (torch.ones(3),)
        """), encoding="utf-8")
    (tmp_path / "_first.py").write_text(
        "import torch\n\n\ndef h(x):\n    return x + 1\n\n\ndef breakscan_examples():\n    yield h, (torch.ones(3),)\n",
        encoding="utf-8")
    # a target before them: after its restore, the live settings are the saved ones
    targets = [(tmp_path / "_first.py", None), (tmp_path / "a_fixed.py", None), (tmp_path / "b_plain.py", None)]
    _, first, second = run_dynamic_many(targets, project_root=tmp_path, timeout=240)
    assert not [f for f in first.findings if f.kind.value == "graph-break"]
    assert [(Path(f.path).name, f.line) for f in second.findings if f.kind.value == "graph-break"] == [("b_plain.py", 5)]
