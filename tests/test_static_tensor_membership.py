"""`v in t` on a tensor (BRK259): `Tensor.__contains__` ends in `.item()`, GB0124. Membership in
Python containers, shapes, values of unknown kind, a string looked up in a value, or a root
parameter taken for a tensor by convention and never used as one is not flagged. (Dynamo's verdict on the
rule's own examples is checked in test_rule_examples on every torch version the rule claims.)"""

from __future__ import annotations

from tests.conftest import static_findings

SOURCE = '''
import torch
from torch import nn

NAMES = ("a", "b")


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, ids, attention_mask, tags, name):
        h = self.proj(ids) * attention_mask.unsqueeze(-1)
        if 0 in attention_mask:
            h = h * 2
        missing = 3 not in h.argmax(-1)
        if 4 in h.shape or name in NAMES or "x" in tags:
            h = h + 1
        return h, missing
'''


def test_membership_in_a_tensor_is_flagged_and_in_python_values_not(tmp_path):
    found = {(f.rule_id, f.line) for f in static_findings(tmp_path, SOURCE) if f.rule_id == "BRK259"}
    assert found == {("BRK259", 15), ("BRK259", 17)}, found


def test_a_root_parameter_only_taken_for_a_tensor_is_not_flagged(tmp_path):
    source = SOURCE.replace(" * attention_mask.unsqueeze(-1)", "")  # never used as a tensor
    found = {(f.rule_id, f.line) for f in static_findings(tmp_path, source) if f.rule_id == "BRK259"}
    assert found == {("BRK259", 17)}, found
