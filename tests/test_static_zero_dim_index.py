"""Indexing with a 0-dim tensor (BRK260): `x[t.argmax()]` reads the index with `.item()`
(GB0033). Only `argmax`/`argmin` without a dimension, inline or bound once to a local, are
matched; index tensors with a dimension, stores and rebound names are not. (Dynamo's verdict on
the rule's own examples is checked in test_rule_examples on every torch version it claims.)"""

from __future__ import annotations

import pytest

from tests.conftest import break_statuses, cli_findings, requires_torch, static_findings, write_files

SOURCE = '''
import torch
from torch import nn


class Picker(nn.Module):
    def forward(self, boxes, scores):
        best = scores.argmax()
        top = boxes[best]
        worst = boxes[torch.argmin(scores), 0]
        rows = boxes[scores.argmax(dim=0, keepdim=True)]
        some = boxes[scores.argsort()[:2]]
        boxes[scores.argmin()] = 0
        k = scores.argmax()
        k = k + 1
        again = boxes[k]
        return top, worst, rows, some, again
'''


def test_zero_dim_indices_are_flagged_and_others_not(tmp_path):
    found = {(f.rule_id, f.line) for f in static_findings(tmp_path, SOURCE) if f.rule_id == "BRK260"}
    assert found == {("BRK260", 9), ("BRK260", 10)}, found


AFTER_A_BREAK = '''
import logging

import torch

logger = logging.getLogger(__name__)


@torch.compile(backend="eager")
def report(x, err):
    worst = err.argmax()
    logger.info("worst sample %s", worst)
    return x[worst]


@torch.compile(backend="eager")
def direct(x, err):
    worst = err.argmax()
    return x[worst]


def breakscan_examples():
    yield report, (torch.randn(4, 3), torch.randn(4))
    yield direct, (torch.randn(4, 3), torch.randn(4))
'''


def test_an_index_computed_before_a_break_is_a_graph_input(tmp_path):
    """After the logging call breaks the graph, the resumed graph receives `worst` as an input:
    indexing with it does not break (measured on 2.13)."""
    found = {(f.rule_id, f.line) for f in static_findings(tmp_path, AFTER_A_BREAK, regions="explicit")}
    assert ("BRK202", 12) in found, found
    assert ("BRK260", 13) not in found, found
    assert ("BRK260", 19) in found, found


@pytest.mark.dynamic
@requires_torch
def test_dynamo_agrees_on_indices_after_a_break(tmp_path):
    write_files(tmp_path, {"model.py": AFTER_A_BREAK})
    found = break_statuses(cli_findings(tmp_path, "check", "model.py", "--show-refuted", cache=tmp_path / "cache"))
    assert ("BRK260", "model.py", 19, "confirmed") in found, found
    assert not {f for f in found if f[3] in ("refuted", "observed")}, found
