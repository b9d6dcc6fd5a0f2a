"""BRK275: an `nn.TransformerEncoder` / `TransformerDecoder` / `Transformer` given an attention
mask without its causal flag tests the mask's values (`_detect_is_causal_mask`), a graph break
inside torch (GB0124; measured on 2.13 and 2.15). From the dev user program
`s16_d03_seq2seq_padding_greedy.py`. Here a package with relative imports and unannotated
helpers; the breaks sit inside torch, so the test also checks that the dynamic pass places each
at the user's call of the module, once per call site: in `forward`, which Dynamo's traceback
folds into torch's `forward` (`probe.keep_nested_frames`), and at a second call site of the same
torch line, whose traceback Dynamo suppresses as a repeat (`probe.keep_repeated_break_stacks`)."""

from __future__ import annotations

import pytest

from tests.conftest import assert_package_confirms, requires_torch, static_located

PACKAGE = {
    "seqkit/__init__.py": "",
    "seqkit/masks.py": '''
        import torch
        from torch import nn


        def causal(n):
            return nn.Transformer.generate_square_subsequent_mask(n)


        def padding(tokens):
            return tokens == 0
        ''',
    "seqkit/model.py": '''
        import torch
        from torch import nn

        from .masks import causal, padding


        class Blocks(nn.TransformerEncoder):
            pass


        class Seq2Seq(nn.Module):
            def __init__(self, d=16, vocab=11):
                super().__init__()
                self.emb = nn.Embedding(vocab, d)
                layer = nn.TransformerEncoderLayer(d, 2, dim_feedforward=32, batch_first=True)
                self.encoder = Blocks(layer, 1, enable_nested_tensor=False)
                self.tf = nn.Transformer(d, 2, 1, 1, 32, batch_first=True)
                self.layer = nn.TransformerDecoderLayer(d, 2, dim_feedforward=32, batch_first=True)

            def encode(self, src, mask=None):
                h = self.emb(src)
                m = torch.triu(torch.full((src.size(1), src.size(1)), float("-inf")), diagonal=1)
                a = self.encoder(h, m)
                b = self.encoder(h, mask=m, is_causal=True)
                c = self.encoder(h, mask=mask)
                d = self.encoder(h, src_key_padding_mask=padding(src))
                return a + b + c + d

            def decode(self, tgt, memory):
                h = self.emb(tgt)
                m = causal(tgt.size(1))
                x = self.tf.decoder(h, memory, tgt_mask=m)
                y = self.tf.decoder(h, memory, tgt_mask=m, tgt_is_causal=False)
                z = self.layer(h, memory, tgt_mask=m)
                return x + y + z

            def forward(self, src, tgt):
                memory = self.encode(src)
                out = self.tf(self.emb(src), self.emb(tgt), src_mask=None, memory_mask=None)
                again = self.tf(self.emb(src), self.emb(tgt), tgt_mask=causal(tgt.size(1)))
                return self.decode(tgt, memory) + out + again
        ''',
    "seqkit/run.py": '''
        import torch

        from .model import Seq2Seq

        model = Seq2Seq()
        step = torch.compile(model, backend="eager")
        src = torch.randint(1, 11, (2, 5))
        step(src, src)
        model.eval()
        with torch.no_grad():
            step(src, src)
        ''',
}
EXPECTED = {("BRK275", "model.py", 24), ("BRK275", "model.py", 33), ("BRK275", "model.py", 41)}


def test_masks_without_causal_flag_are_flagged_and_other_calls_are_not(tmp_path):
    assert {f for f in static_located(tmp_path, PACKAGE) if f[0] == "BRK275"} == EXPECTED


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_each_call_site_of_the_break_inside_torch(tmp_path):
    assert_package_confirms(tmp_path, PACKAGE, "seqkit.run", EXPECTED)
