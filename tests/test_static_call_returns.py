"""What an unannotated project function returns is read with the arguments of each call (Dynamo
inlines every call with its own values): `masked_mean(h, mask)` from another file of the package
returns a tensor when called on tensors, so a Python branch on it is data-dependent (GB0170).
`torch.where(c, a, b)` and `torch.max(a, b)` are tensors, not (values, indices) pairs. A helper
called on a Python list returns a Python value: no prediction, and Dynamo does not break.
Confirmed by Dynamo 2.13 through the CLI; the cache re-checks a caller when the callee changes."""

from __future__ import annotations

from tests.conftest import break_statuses, cli_findings, requires_torch, write_files

# A user's RL package: unannotated helpers in one file, the policy in another (relative import).
PACKAGE = {
    "ppo/__init__.py": "",
    "ppo/losses.py": '''
        import torch


        def masked_mean(values, mask):
            return (values * mask).sum() / mask.sum()


        def pair_max(a, b):
            return torch.max(a, b)


        def num_layers(sizes):
            return len(sizes) * 2
        ''',
    "ppo/model.py": '''
        import torch
        from torch import nn

        from .losses import masked_mean, num_layers, pair_max


        def _gate(x, t):
            return torch.where(x > t, x, torch.zeros_like(x))


        class Policy(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(4, 4)
                self.sizes = [4, 4]

            def forward(self, x, mask):
                h = self.proj(x)
                loss = masked_mean(h, mask)
                if loss > 0:
                    h = h * 2
                g = _gate(h, 0.5)
                if g.sum() > 1:
                    h = h + 1
                m = pair_max(h, g)
                if m.mean() > 0:
                    h = h - 1
                if num_layers(self.sizes) > 3:
                    h = h * 3
                return h


        def breakscan_examples():
            yield Policy(), (torch.randn(2, 4), torch.ones(2, 4))
        ''',
}


@requires_torch
def test_returns_read_with_the_call_arguments_are_confirmed_by_dynamo(tmp_path):
    write_files(tmp_path, PACKAGE)
    found = break_statuses(cli_findings(tmp_path, "check", "ppo", "--show-refuted", cache=tmp_path / "cache"))
    assert ("BRK101", "model.py", 21, "confirmed") in found  # a cross-file helper's return
    assert ("BRK101", "model.py", 24, "confirmed") in found  # torch.where(c, a, b) via a local helper
    assert ("BRK101", "model.py", 27, "confirmed") in found  # torch.max(a, b) via a cross-file helper
    assert not {f for f in found if f[2] == 29}  # num_layers(list): a Python int
    assert not {f for f in found if f[3] in ("refuted", "observed")}, found


def test_a_caller_is_checked_again_when_the_called_function_changes(tmp_path):
    paths = write_files(tmp_path, PACKAGE)
    cache = tmp_path / "cache"
    before = {(f["rule_id"], f["line"]) for f in cli_findings(tmp_path, "--no-dynamic", "ppo", cache=cache)
              if f["path"].endswith("model.py")}
    assert ("BRK101", 21) in before
    losses = paths[1]
    losses.write_text(losses.read_text().replace("return (values * mask).sum() / mask.sum()", "return 0.5"))
    after = {(f["rule_id"], f["line"]) for f in cli_findings(tmp_path, "--no-dynamic", "ppo", cache=cache)
             if f["path"].endswith("model.py")}
    assert ("BRK101", 21) not in after  # a stale cached row would still say so
    assert ("BRK101", 24) in after
