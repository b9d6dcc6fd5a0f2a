"""A compiled function that calls a method of a module-level instance (`model.encode(x)`, with
`model = Encoder()` bound once) traces that method: Dynamo inlines it like any method call. The
method's parameters take the kinds the compiled function passes, and so do the helpers it calls
in a third file (call-site inference joins callers two files away). Checked through the CLI
against Dynamo on a package with relative imports and unannotated helpers; the cache is keyed on
the far caller's file too."""

from __future__ import annotations

import pytest

from tests.conftest import break_statuses, cli_findings, requires_torch, static_findings, write_files

PACKAGE = {
    "textnet/__init__.py": "from .model import Encoder\n",
    "textnet/masks.py": '''
        import torch


        def lengths_to_mask(lengths, max_len=None):
            if max_len is None:
                max_len = int(lengths.max())
            ids = torch.arange(max_len, device=lengths.device)
            return ids[None, :] < lengths[:, None]


        def pick_rows(x, mask):
            return x[mask]


        def top_mask(scores, k):
            vals, _ = scores.topk(k, dim=-1)
            return scores >= vals[..., -1:]
        ''',
    "textnet/model.py": '''
        from torch import nn

        from .masks import lengths_to_mask, pick_rows, top_mask


        class Encoder(nn.Module):
            def __init__(self, vocab=50, dim=8):
                super().__init__()
                self.emb = nn.Embedding(vocab, dim)

            def forward(self, tokens):
                return self.emb(tokens)

            def valid_tokens(self, tokens, lengths):
                mask = lengths_to_mask(lengths)
                return pick_rows(self.emb(tokens), mask)

            def kept_positions(self, tokens, k):
                keep = top_mask(self.emb(tokens).norm(dim=-1), k)
                return keep.nonzero()

            def scale(self, factor):
                return [factor * 2 for _ in range(3)]
        ''',
    "run.py": '''
        import torch

        from textnet import Encoder

        model = Encoder()


        @torch.compile
        def valid(tokens, lengths):
            return model.valid_tokens(tokens, lengths)


        @torch.compile
        def kept(tokens):
            return model.kept_positions(tokens, 3)


        @torch.compile
        def scaled(x):
            return x * sum(model.scale(2))


        def breakscan_examples():
            tokens = torch.randint(0, 50, (2, 6))
            yield valid, (tokens, torch.tensor([6, 3]))
            yield kept, (tokens,)
            yield scaled, (torch.ones(2),)
        ''',
}


def _located(findings) -> set[tuple[str, str, int]]:
    return {(f.rule_id, f.path.rsplit("/", 1)[-1], f.line) for f in findings}


def test_methods_of_a_module_level_instance_are_traced(tmp_path):
    found = _located(static_findings(tmp_path, PACKAGE, regions="explicit"))
    assert ("BRK104", "masks.py", 7) in found, found  # int(lengths.max()): lengths from run.py, two files away
    assert ("BRK106", "masks.py", 13) in found, found  # x[mask]: mask is lengths_to_mask's comparison
    assert ("BRK105", "model.py", 21) in found, found  # keep.nonzero() in a method the instance call reaches
    assert not {f for f in found if f[1] == "model.py" and f[2] == 24}, found  # Python ints only


def test_without_the_instance_binding_nothing_is_traced(tmp_path):
    files = dict(PACKAGE)
    files["run.py"] = PACKAGE["run.py"].replace("model = Encoder()", "model = make_encoder()")
    found = _located(static_findings(tmp_path, files, regions="explicit"))
    assert not {f for f in found if f[1] in ("masks.py", "model.py")}, found


@pytest.mark.dynamic
@requires_torch
def test_dynamo_confirms_breaks_in_instance_methods(tmp_path):
    write_files(tmp_path, PACKAGE)
    found = break_statuses(cli_findings(tmp_path, "check", ".", "--show-refuted", cache=tmp_path / "cache"))
    for rule, name, line in (("BRK104", "masks.py", 7), ("BRK106", "masks.py", 13), ("BRK105", "model.py", 21)):
        assert (rule, name, line, "confirmed") in found, found
    assert not {f for f in found if f[3] in ("refuted", "observed")}, found


def test_cache_follows_the_caller_two_files_away(tmp_path):
    """Editing only run.py (the compiled function) changes what masks.py's parameters are: its
    cached findings must not be reused."""
    write_files(tmp_path, PACKAGE)
    cache = tmp_path / "cache"
    first = cli_findings(tmp_path, "check", ".", "--no-dynamic", cache=cache)
    assert any(f["rule_id"] == "BRK104" and f["path"].endswith("masks.py") for f in first), first
    run = tmp_path / "run.py"
    run.write_text(run.read_text().replace("model.valid_tokens(tokens, lengths)",
                                           "model.valid_tokens(tokens, [3, 2])"))
    second = cli_findings(tmp_path, "check", ".", "--no-dynamic", cache=cache)
    assert not any(f["rule_id"] == "BRK104" and f["path"].endswith("masks.py") for f in second), second
