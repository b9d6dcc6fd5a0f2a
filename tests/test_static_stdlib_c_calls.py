"""BRK214 on the standard library's C functions that Dynamo marks as skipped, read from
rules/data/torch-ops.json (`stdlib_c_skipped`, written by scripts/refresh_torch_data.py, which
confirms each with a `fullgraph=True` compile on the installed torch): `bisect.bisect_right` in an
LR-style stage lookup and `heapq.heappush` in a top-k helper break the graph (GB0007, "Attempted
to call function marked as skipped") on 2.13. Torch 2.15 traces `heapq` (a polyfill): the data's
`traced_by` limits those names to torch before 2.15, so the CLI on 2.15 predicts only the
`bisect` line, and Dynamo confirms it. Python functions of the same modules that Dynamo inlines
(`heapq.nlargest`) are not flagged. A package with relative imports, the helpers unannotated."""

from __future__ import annotations

import pytest

from tests.conftest import assert_package_confirms, requires_torch, static_located, torch_ops_tag


PACKAGE = {
    "sched/__init__.py": "",
    "sched/stages.py": '''
        import heapq
        from bisect import bisect_right

        MILESTONES = [10, 20, 30]


        def stage_of(step):
            return bisect_right(MILESTONES, step)


        def best_two(scores):
            heap = []
            for s in scores:
                heapq.heappush(heap, s)
            return heapq.nlargest(2, heap)
        ''',
    "sched/model.py": '''
        import torch

        from .stages import best_two, stage_of


        def scaled(x):
            return x * (0.1 ** stage_of(15))


        def ranked(x):
            top = best_two([3, 1, 2])
            return x * top[0]
        ''',
    "sched/run.py": '''
        import torch

        from .model import ranked, scaled

        x = torch.ones(4)
        torch.compile(scaled, backend="eager")(x)
        torch.compile(ranked, backend="eager")(x)
        ''',
}
EXPECTED = {("BRK214", "stages.py", 9), ("BRK214", "stages.py", 15)}


def test_skipped_stdlib_c_functions_are_flagged(tmp_path):
    assert {f for f in static_located(tmp_path, PACKAGE) if f[0] == "BRK214"} == EXPECTED


def test_the_list_is_dynamo_derived_and_leaves_python_functions_out():
    calls = torch_ops_tag("stdlib_c_skipped")["calls"]
    assert {"bisect.bisect_right", "heapq.heappush", "binascii.crc32"} <= set(calls)
    # Python functions Dynamo inlines, and names other rules match (time.*, zlib.*), are not in it
    assert not {"heapq.nlargest", "os.getenv", "time.time", "zlib.crc32"} & set(calls)


def test_names_a_newer_torch_traces_are_limited_to_older_versions():
    from breakscan.catalog import load_catalog

    rule = load_catalog()["BRK214"]
    assert "heapq.heappush" in rule.for_torch((2, 13)).match["calls"]
    assert "heapq.heappush" not in rule.for_torch((2, 15)).match["calls"]
    assert "bisect.bisect_right" in rule.for_torch((2, 15)).match["calls"]


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_the_skipped_calls_and_nothing_else(tmp_path):
    import torch

    on_215 = tuple(int(p) for p in torch.__version__.split(".")[:2]) >= (2, 15)
    expected = {("BRK214", "stages.py", 9)} if on_215 else EXPECTED
    assert_package_confirms(tmp_path, PACKAGE, "sched.run", expected)
