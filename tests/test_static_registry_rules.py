"""Rules made from candidates of Dynamo's graph-break registry (BRK222-BRK235, BRK306), run as a
user runs breakscan: a package with relative imports and unannotated code. Each flags only what
surely breaks: the same calls with the argument that makes them traceable are not flagged.

Measured on torch 2.13 (backend "eager"): an `nn.LSTM` subclass defined in another module of the
package breaks when called (GB0014), an `nn.GRUCell` does not; `F.one_hot` without `num_classes`
breaks (GB0246), with it does not; `sorted()` of `unbind` results breaks (GB0207), with `key=len`
it does not; a factory with `requires_grad=False`, a `torch._check` message lambda over an int and
a jagged nested tensor are traced; a `class` statement in a helper the region inlines breaks
(GB8977), one at module level does not matter. The dynamic test checks each prediction.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import break_statuses, cli_findings, located, requires_torch, write_files

FILES = {
    "speech/__init__.py": "",
    "speech/layers.py": """
        from torch import nn


        class StackedLSTM(nn.LSTM):
            def __init__(self, size):
                super().__init__(size, size, batch_first=True)


        class Settings:
            scale = 2.0
    """,
    "speech/model.py": """
        import torch
        import torch.nn.functional as F
        from torch import nn

        from .layers import Settings, StackedLSTM


        def rescale(x):
            class Local:
                factor = 3.0
            return x * Local.factor * Settings.scale


        class Tagger(nn.Module):
            def __init__(self, vocab, size):
                super().__init__()
                self.vocab = vocab
                self.embed = nn.Embedding(vocab, size)
                self.rnn = StackedLSTM(size)
                self.cell = nn.GRUCell(size, size)
                self.head = nn.Linear(size, vocab)

            def forward(self, tokens):
                h = self.embed(tokens)
                step = self.cell(h[:, 0])
                target = F.one_hot(tokens, num_classes=self.vocab)
                first = F.one_hot(tokens[:, 0])
                scores = h[:, 0, 0]
                by_size = sorted(h.unbind(0), key=len)
                ranked = sorted(scores.unbind(0))
                n = tokens.shape[0]
                torch._check(n > 0, lambda: f"empty batch of {n}")
                mask = torch.zeros(n, requires_grad=False)
                out, _ = self.rnn(h)
                logits = self.head(out + step.unsqueeze(1))
                return rescale(logits), target, first, ranked[0] + by_size[0].sum(), mask


        def breakscan_examples():
            yield torch.compile(Tagger(7, 4)), (torch.tensor([[1, 2, 3], [4, 5, 6]]),)
    """,
}
PREDICTED = {("BRK228", "model.py", 10), ("BRK223", "model.py", 28), ("BRK230", "model.py", 31),
             ("BRK231", "model.py", 35)}


def test_registry_rules_flag_only_the_breaking_forms_in_a_package(tmp_path: Path) -> None:
    write_files(tmp_path, FILES)
    findings = cli_findings(tmp_path, "speech", "--no-dynamic", "--no-cache")
    assert located(findings) == PREDICTED


@pytest.mark.dynamic
@requires_torch
def test_dynamo_confirms_the_registry_rule_predictions(tmp_path: Path) -> None:
    write_files(tmp_path, FILES)
    findings = cli_findings(tmp_path, "speech", "--no-cache", "--backend", "eager")
    assert break_statuses(findings) == {(*p, "confirmed") for p in PREDICTED}
