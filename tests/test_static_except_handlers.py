"""A graph break inside an `except` handler runs only when the `try` body raises, which Dynamo
does not trace unless tracing raised: it makes Dynamo skip no frame (frames.SkippedFrames,
Finding.extra["except_handler"]). Before, a helper whose handler formats `index.max().item()`
(torch_geometric's `MessagePassing._index_select_safe`) made every loop calling it count as
broken, and the predictions after the call in the loop were dropped as code run eagerly: the
dev miss of torch_geometric's FiLMConv with relations (`edge_index[:, mask]` after
`self.propagate(...)`). The handler's own prediction is still reported. Checked with
`breakscan run` on 2.13 and 2.15."""

from __future__ import annotations

import pytest

from tests.conftest import break_statuses, requires_torch, rule_lines, run_findings, static_findings, write_files

SOURCE = '''
import torch


def gather(src, index):
    try:
        return src.index_select(0, index)
    except RuntimeError as e:
        raise IndexError(f"index {index.max().item()} out of range") from e


@torch.compile(backend="eager")
def pooled(x, idx, kinds):
    out = x.new_zeros(x.shape[1])
    for i in range(3):
        picked = gather(x, idx)
        mask = kinds == i
        out = out + picked[mask].sum(0)
    return out


def main():
    x = torch.randn(6, 4)
    pooled(x, torch.randint(0, 6, (10,)), torch.randint(0, 3, (10,)))


if __name__ == "__main__":
    main()
'''

MASK = ("BRK106", 18)
HANDLER = ("BRK102", 9)


def test_a_handler_break_skips_no_frame(tmp_path):
    findings = static_findings(tmp_path, {"train.py": SOURCE})
    assert {MASK, HANDLER} <= rule_lines(findings)
    assert [f.extra.get("except_handler") for f in findings if (f.rule_id, f.line) == HANDLER] == [True]
    assert not any(f.extra.get("except_handler") for f in findings if (f.rule_id, f.line) == MASK)


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms(tmp_path):
    write_files(tmp_path, {"train.py": SOURCE})
    found = break_statuses(run_findings(tmp_path, "train.py"))
    # The handler never runs: its prediction stays one (its line is not traced); nothing else.
    assert found == {(*MASK[:1], "train.py", MASK[1], "confirmed"), (*HANDLER[:1], "train.py", HANDLER[1], "predicted")}
