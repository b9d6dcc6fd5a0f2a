"""TypeEnv's element binding (`self.history[-1] = t`), checked on the kinds it gives, with the
real static pass over a snippet: the read before the store and a store at another index."""

from __future__ import annotations

from tests.conftest import rule_lines, static_findings

SOURCE = '''
import torch


class Sampler(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.history = [None, None]

    def forward(self, x):
        if self.history[-1] is not None and self.history[-1] > 0:
            x = x + 1
        self.history[-1] = x.sum()
        if self.history[-1] > 0:
            x = x * 2
        self.history[-1] = 3
        if self.history[-1] > 0:
            x = x * 3
        self.history[0] = x.mean()
        i = 1
        self.history[i] = 5
        if self.history[0] > 0:
            x = x - 1
        return x


model = torch.compile(Sampler())
'''


def test_an_element_stored_is_read_back_until_replaced(tmp_path):
    found = {line for rule, line in rule_lines(static_findings(tmp_path, SOURCE)) if rule == "BRK101"}
    # 11: before any store (unknown); 14: the stored tensor; 17: replaced by a number;
    # 22: `self.history[i] = ...` may have replaced element 0
    assert found == {14}

