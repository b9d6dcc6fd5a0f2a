"""A tensor as a slice bound (BRK258): a detection head keeps `order[:n_keep]` with `n_keep` a count
of scores over a threshold; a decoder slices its token list by a tensor length. Dynamo reads each
bound with `.item()` (GB0124), confirmed through the CLI on 2.13. A bound derived from a shape, and
a `forward` parameter only guessed to be a tensor, are not flagged."""

from __future__ import annotations

from tests.conftest import break_statuses, cli_findings, requires_torch, write_files

PACKAGE = {
    "det/__init__.py": "",
    "det/ops.py": '''
        import torch


        def select_topk(scores, k):
            k = min(k, scores.numel())
            return scores.topk(k)
        ''',
    "det/head.py": '''
        import torch
        from torch import nn

        from .ops import select_topk


        class Head(nn.Module):
            def __init__(self, dim=8, score_thresh=0.3, max_det=5):
                super().__init__()
                self.cls = nn.Linear(dim, 1)
                self.score_thresh = score_thresh
                self.max_det = max_det

            def forward(self, feats, tokens):
                scores = self.cls(feats).squeeze(-1).sigmoid()
                vals, idx = select_topk(scores, self.max_det)
                half = feats[: feats.shape[0] // 2]
                order = vals.argsort(descending=True)
                n_keep = (vals > self.score_thresh).sum()
                kept = idx[order[:n_keep]]
                length = (tokens != 0).sum()
                return kept, tokens.tolist()[:length], half


        class Crop(nn.Module):
            def forward(self, x, n):
                return x[:, :n]


        def breakscan_examples():
            yield Head(), (torch.randn(16, 8), torch.tensor([3, 4, 0, 0]))
            yield Crop(), (torch.randn(2, 8), 4)
        ''',
}


@requires_torch
def test_tensor_slice_bounds_are_predicted_and_confirmed(tmp_path):
    write_files(tmp_path, PACKAGE)
    found = break_statuses(cli_findings(tmp_path, "check", "det", "--show-refuted", cache=tmp_path / "cache"))
    assert ("BRK258", "head.py", 21, "confirmed") in found  # order[:n_keep]
    assert not {f for f in found if f[2] == 18}  # feats[: feats.shape[0] // 2]: a shape
    assert not {f for f in found if f[2] == 29}  # x[:, :n]: `n` is an int the caller passes
    assert not {f for f in found if f[3] in ("refuted", "observed")}, found
