"""The four statuses end to end, from one module: confirmed, observed, refuted, predicted."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from tests.conftest import ROOT, requires_torch

SOURCE = textwrap.dedent('''
    import copy

    import torch


    @torch.compile
    def scale(x, s):
        return x * s.item()


    def maybe_double(x, flag):
        if flag:
            x = x * 2
        return x


    @torch.compile
    def pad_to_multiple(x):
        return maybe_double(x, x.sum() > 0) + maybe_double(x, True)


    @torch.compile
    def with_defaults(x):
        factor = copy.copy(2.0)
        return x * factor


    @torch.compile
    def never_called(x):
        return x * x.max().item()


    def breakscan_examples():
        yield scale, (torch.ones(4), torch.tensor(2.0))
        yield pad_to_multiple, (torch.randn(2, 5),)
        yield with_defaults, (torch.ones(4),)
''')


def _run(tmp_path, *args):
    path = tmp_path / "statuses.py"
    path.write_text(SOURCE, encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "breakscan", str(path), "--no-cache", *args],
                          cwd=tmp_path, capture_output=True, text=True, env={"PYTHONPATH": str(ROOT), "PATH": ""})


@requires_torch
@pytest.mark.dynamic
def test_each_status_is_reported_where_dynamo_says(tmp_path):
    out = _run(tmp_path, "--format", "json", "--root", str(tmp_path))
    findings = {(f["line"], f["rule_id"]): f["status"] for f in json.loads(out.stdout)["findings"]}
    assert findings == {
        (9, "BRK102"): "confirmed",  # predicted and Dynamo broke there (GB0124)
        (13, "GB0170"): "observed",  # `flag` a tensor at one call, a bool at the other: not inferred
        (25, "BRK212"): "refuted",  # copy.copy of a Python float: Dynamo traced it, no break
        (31, "BRK102"): "predicted",  # never executed by an example
    }
    text = _run(tmp_path, "--color", "never", "--root", str(tmp_path)).stdout
    assert "BRK212" not in text and "BRK102" in text and "GB0170" in text
    shown = _run(tmp_path, "--color", "never", "--show-refuted", "--root", str(tmp_path)).stdout
    assert "BRK212" in shown
