"""BRK231 sits where Dynamo refuses the RNN submodule, which depends on the version (driven
through `breakscan run` on a user's script). On 2.13 Dynamo refuses it where the frame first
reads it: `self.lstm.num_layers` or `assert self.gru is not None` a line before the call (GB0014
there; the frame falls back). On 2.15 it breaks at the call (GB0148) and at a read of one of the
module's attributes before it (`self.lstm.num_layers`, GB0014); `is not None` passes.
"""

from __future__ import annotations

import pytest

from breakscan.catalog import load_catalog
from breakscan.config import parse_version
from breakscan.scan import installed_torch_version
from breakscan.static.engine import scan_files
from tests.conftest import assert_script_confirms, requires_torch, rule_lines, write_files

SCRIPT = '''\
import torch
from torch import nn


class Pool(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.lstm = nn.LSTM(d, d, batch_first=True)

    def forward(self, x):
        h = x.new_zeros(self.lstm.num_layers, x.size(0), x.size(-1))
        out, _ = self.lstm(x, (h, h))
        return out.mean(1)


class Head(nn.Module):
    def __init__(self, d, recurrent=True):
        super().__init__()
        self.gru = nn.GRU(d, d, batch_first=True) if recurrent else None
        self.proj = nn.Linear(d, 1)

    def forward(self, x):
        y = self.proj(x)
        assert self.gru is not None
        out, _ = self.gru(x)
        return y + out


Pool(4)(torch.randn(2, 3, 4))
torch.compile(Pool(4), backend="eager")(torch.randn(2, 3, 4))
torch.compile(Head(4), backend="eager")(torch.randn(2, 3, 4))
'''
BREAKS = {(2, 13): [("BRK231", 11), ("BRK231", 24)],
          (2, 15): [("BRK231", 11), ("BRK231", 12), ("BRK231", 25)]}


def _semantics(torch: tuple[int, int]) -> tuple[int, int]:
    return (2, 15) if torch >= (2, 15) else (2, 13)


@pytest.mark.parametrize("torch", [(2, 13), (2, 15)])
def test_rnn_submodule_flagged_where_dynamo_refuses_it(tmp_path, torch):
    rules = [r for r in (rule.for_torch(torch) for rule in load_catalog().values()) if r is not None]
    found = {hit for hit in rule_lines(scan_files(write_files(tmp_path, {"train.py": SCRIPT}), rules).findings)
             if hit[0] == "BRK231"}
    assert found == set(BREAKS[torch]), found


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_reports_the_rnn_where_the_version_refuses_it(tmp_path):
    assert_script_confirms(tmp_path, SCRIPT, BREAKS[_semantics(parse_version(installed_torch_version()))])
