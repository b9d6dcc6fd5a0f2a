"""Indexing with a 0-dim tensor (BRK260): `x[t.argmax()]` reads the index with `.item()`
(GB0033). Only `argmax`/`argmin` without a dimension, inline or bound once to a local, are
matched; index tensors with a dimension, stores and rebound names are not. (Dynamo's verdict on
the rule's own examples is checked in test_rule_examples on every torch version it claims.)"""

from __future__ import annotations

from tests.conftest import static_findings

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
