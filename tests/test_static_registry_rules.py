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


# A diffusion-style block: hooks registered by the parent, a seeded generator kept on the module,
# weights swapped through `.data`. Measured on torch 2.13: the child with a backward hook breaks
# (GB0083), the one with a forward hook does not; `generator=self.gen` breaks (GB0055), a
# `generator` argument that is None does not; `.data =` on an argument is traced, on a tensor made
# in the graph it breaks (GB0056); `torch.equal` breaks (GB0033); `repeat_interleave` by a
# computed tensor breaks (GB0036), by an int it does not.
BLOCK = {
    "blocks/__init__.py": "from .unet import Block\n",
    "blocks/unet.py": """
        import torch
        from torch import nn


        def keep(module, grad_input, grad_output):
            return None


        def seen(module, args, output):
            return None


        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.down = nn.Linear(4, 4)
                self.up = nn.Linear(4, 4)
                self.down.register_full_backward_hook(keep)
                self.up.register_forward_hook(seen)
                self.gen = torch.Generator().manual_seed(0)

            def forward(self, x, shadow, lengths, generator=None):
                h = self.up(x)
                shadow.data = h.detach()
                noise = torch.randn(h.shape, generator=generator)
                mixed = h + torch.randn(h.shape, generator=self.gen)
                wide = h.repeat_interleave(2, dim=0)
                counts = lengths.clamp(min=1)
                long = torch.repeat_interleave(h, counts, dim=0)
                same = torch.equal(h, noise)
                scratch = torch.zeros(4)
                scratch.data = h[0]
                return self.down(mixed + noise), wide, long, same, scratch


        def breakscan_examples():
            yield torch.compile(Block()), (torch.randn(2, 4), torch.zeros(2, 4), torch.tensor([1, 2]))
    """,
}
BLOCK_PREDICTED = {("BRK236", "unet.py", 27), ("BRK238", "unet.py", 30), ("BRK237", "unet.py", 31),
                   ("BRK307", "unet.py", 33), ("BRK308", "unet.py", 34)}


def test_hooks_generators_and_data_swaps_are_told_apart(tmp_path: Path) -> None:
    write_files(tmp_path, BLOCK)
    findings = cli_findings(tmp_path, "blocks", "--no-dynamic", "--no-cache")
    assert located(findings) == BLOCK_PREDICTED


@pytest.mark.dynamic
@requires_torch
def test_dynamo_confirms_hooks_generators_and_data_swaps(tmp_path: Path) -> None:
    write_files(tmp_path, BLOCK)
    findings = cli_findings(tmp_path, "blocks", "--no-cache", "--backend", "eager")
    assert break_statuses(findings) == {(*p, "confirmed") for p in BLOCK_PREDICTED}
