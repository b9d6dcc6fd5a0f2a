"""Call-site parameter inference, tuple returns, graph-input sizes (BRK108) and list comparisons
holding a tensor (BRK109). The Dynamo facts behind each expectation are in the rule files and in
breakscan/static/checks/ (`visitor.RegionVisitor._computes`, `operators.OperatorChecks._sequence_compare`)."""

from __future__ import annotations

from tests.conftest import rule_lines, static_findings

_HEAD = """
import torch
from torch import nn

class M(nn.Module):
    def forward(self, x):
        n = x.sum()
"""


def test_private_method_parameter_takes_the_tensor_passed_at_every_call(tmp_path):
    findings = static_findings(tmp_path, _HEAD + """
        y = self._scale(x, n)
        return self._scale(y, n=x.max())

    def _scale(self, x, n):
        if n > 0:
            return x * 2
        return x
""")
    assert rule_lines(findings) == {("BRK101", 13)}


def test_module_function_and_staticmethod_parameters_are_inferred(tmp_path):
    findings = static_findings(tmp_path, """
import torch
from torch import nn

def _count(mask):
    return int(mask.sum())

class M(nn.Module):
    def forward(self, x):
        return self._pick(x > 0) + _count(x > 1)

    @staticmethod
    def _pick(mask):
        return mask.nonzero()
""")
    assert rule_lines(findings) == {("BRK104", 6), ("BRK105", 14)}


def test_parameter_stays_unknown_unless_every_call_passes_a_tensor(tmp_path):
    findings = static_findings(tmp_path, "import functools\n" + _HEAD + """
        a = self._mixed(x, n) + self._mixed(x, 3)
        b = self._defaulted(x, n) + self._defaulted(x)
        c = self._starred(*(x, n))
        d = self._escapes(x, n)
        e = self._decorated(x, n)
        f = self._twice(x, n)
        return a + b + c + d + e + f + torch.func.vmap(self._escapes)(x, n)

    def _mixed(self, x, n):
        return x * 2 if n > 0 else x

    def _defaulted(self, x, n=None):
        return x * 2 if n > 0 else x

    def _starred(self, x, n):
        return x * 2 if n > 0 else x

    def _escapes(self, x, n):
        return x * 2 if n > 0 else x

    @functools.lru_cache(maxsize=None)
    def _decorated(self, x, n):
        return x * 2 if n > 0 else x

    def _twice(self, x, n):
        return x * 2 if n > 0 else x

    def _twice(self, x, n):
        return x * 2 if n > 0 else x
""")
    # `_escapes` is also passed as a value (to vmap), which the join cannot see; its one traced
    # call passes a tensor, and Dynamo inlines that call: `n > 0` breaks there (GB0170). Passed
    # to vmap, the eager transform then calls it as a frame Dynamo refuses (BRK417 at its def).
    # A decorator that may change the arguments (`lru_cache`) hides the callers; a grad mode
    # (`@torch.no_grad()`) does not (tests/test_static_grad_mode_decorators.py).
    assert [(f.rule_id, f.code, f.chain) for f in findings] == [
        ("BRK417", "def _escapes(self, x, n):", ("M.forward", "M._escapes")),
        ("BRK101", "n > 0", ("M.forward", "M._escapes"))]


def test_a_name_in_a_comment_does_not_hide_the_traced_call(tmp_path):
    # The same-file join counts `_scale` in the comment as a use it cannot see and gives up; the
    # project join takes the traced calls it sees: this one passes a tensor, so `n > 0` breaks.
    findings = static_findings(tmp_path, _HEAD + """
        return self._scale(x, n)  # see _scale

    def _scale(self, x, n):
        if n > 0:
            return x * 2
        return x
""")
    assert rule_lines(findings) == {("BRK101", 12)}


def test_tuple_return_binds_elements_one_by_one(tmp_path):
    findings = static_findings(tmp_path, _HEAD + """
        top, count = self._stats(x)
        if count > 1:
            x = x + 1
        if top > 0:
            x = x * 2
        return x

    def _stats(self, x: torch.Tensor):
        return x.max(), 3
""")
    assert rule_lines(findings) == {("BRK101", 12)}


def test_size_from_a_graph_input_is_not_flagged_and_a_computed_one_is(tmp_path):
    findings = static_findings(tmp_path, """
import torch
from torch import nn

class M(nn.Module):
    def forward(self, x, lengths):
        n = lengths.max()
        alias = lengths
        a = x.narrow(0, 0, lengths)
        b = x.new_zeros(alias, 2)
        c = x.narrow(0, 0, n)
        d = x.narrow(-1, lengths, x.size(-1) - lengths)
        e = x.new_zeros(lengths[0], 2)
        return a + b + c + d + e
""")
    assert rule_lines(findings) == {("BRK108", 11), ("BRK108", 12), ("BRK108", 13)}


def test_size_computed_before_a_predicted_break_is_a_graph_input(tmp_path):
    findings = static_findings(tmp_path, """
import torch
from torch import nn

class M(nn.Module):
    def forward(self, x, mask):
        n = mask.sum()
        idx = mask.nonzero()
        a = torch.arange(n)
        m = mask.max()
        return x.new_zeros(m, 2), a, idx
""")
    assert rule_lines(findings) == {("BRK105", 8), ("BRK108", 11)}


def test_list_comparison_holding_a_tensor(tmp_path):
    findings = static_findings(tmp_path, _HEAD + """
        assert list(x.size()) == [2, n, 4], "wrong size"
        assert tuple(x.shape) != (2, n), "wrong size"
        if x.shape == (n, 2):
            x = x + 1
        ok = [x.size(0), 3] == [n, 3]
        assert list(x.size()) == [2, x.size(1), 4], "shapes only"
        assert x.size(1) == n, "a tensor assert is traced"
        other = self.expected
        return x, ok, other == [n, 2], n in (1, 2)
""")
    assert rule_lines(findings) == {("BRK109", 9), ("BRK109", 10), ("BRK109", 11), ("BRK109", 13)}


def test_longformer_global_attention_pattern(tmp_path):
    # transformers' longformer: a 0-d count returned in a tuple from a staticmethod after a
    # `nonzero` break, then passed to helpers (lines 934, 985 and 1023 of modeling_longformer.py).
    findings = static_findings(tmp_path, """
import torch
from torch import nn

class Attention(nn.Module):
    def forward(self, hidden_states, attention_mask=None, is_index_global_attn=None):
        probs = hidden_states.softmax(-1)
        (max_num, nonzero) = self._indices(is_index_global_attn)
        out = self._with_global(probs, max_num=max_num)
        return self._from_hidden(hidden_states, max_num) + out

    @staticmethod
    def _indices(is_index_global_attn):
        num = is_index_global_attn.long().sum(dim=1)
        max_num = num.max()
        nonzero = is_index_global_attn.nonzero(as_tuple=True)
        local = torch.arange(max_num, device=num.device) < num.unsqueeze(dim=-1)
        return max_num, nonzero

    def _with_global(self, probs, max_num):
        only_global = probs.narrow(-1, 0, max_num)
        rest = probs.narrow(-1, max_num, probs.size(-1) - max_num)
        return only_global.sum() + rest.sum()

    def _from_hidden(self, hidden_states, max_num):
        scores = hidden_states * 2
        assert list(scores.size()) == [2, max_num, 4], "wrong size"
        return scores.sum()
""")
    assert rule_lines(findings) == {("BRK105", 16), ("BRK108", 22), ("BRK109", 27)}
