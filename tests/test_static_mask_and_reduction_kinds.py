"""What the static pass infers of values that masks and reductions produce, checked against
Dynamo 2.13 through the CLI:

- a boolean mask stays a mask through the methods that keep a tensor's dtype
  (`helper(...).bool().unsqueeze(1).repeat(...)`): indexing with it breaks (GB0036, BRK106);
  `.view(torch.uint8)` changes the dtype and is not a mask;
- `torch.max(x)` / `torch.min(x)` (one tensor), `torch.max(x, y)` (elementwise) and
  `torch.where(c, x, y)` return one tensor, not a (values, indices) pair: `.item()` of one breaks
  (GB0124, BRK102), a branch on one breaks (GB0170, BRK101); `torch.max(x, dim=1)` is a pair and
  its unpacked values are not flagged.
"""

from __future__ import annotations

from tests.conftest import break_statuses, cli_findings, requires_torch, write_files

# A user's augmentation package: unannotated helpers in a sibling module, imported relatively.
PACKAGE = {
    "augment/__init__.py": "",
    "augment/boxes.py": '''
        import torch


        def box_mask(boxes, height, width):
            ys = torch.arange(height).view(1, height, 1)
            xs = torch.arange(width).view(1, 1, width)
            top, bottom = boxes[:, 0].view(-1, 1, 1), boxes[:, 1].view(-1, 1, 1)
            return ((ys >= top) & (ys < bottom) & (xs >= 0)).float()
        ''',
    "augment/mix.py": '''
        import torch

        from .boxes import box_mask


        def cut_mix(images, shuffled, boxes):
            out = images.clone()
            mask = box_mask(boxes, images.size(2), images.size(3)).bool().unsqueeze(1).repeat(1, images.size(1), 1, 1)
            out[mask] = shuffled[mask]
            return out


        def as_bytes(images):
            raw = (images > 0.5).view(torch.uint8)
            return images * raw


        def importance_floor(weights):
            floor = max(torch.min(weights).item(), 1e-3)
            return weights.clamp(min=floor)


        def brighter(a, b):
            if torch.max(a, b).mean() > 0.5:
                return a
            return b


        def clipped_total(x):
            kept = torch.where(x > 0.5, x, torch.zeros_like(x))
            return x / kept.sum().item()


        def row_peaks(x):
            values, indices = torch.max(x, dim=1)
            return values * 2, indices


        def breakscan_examples():
            images = torch.rand(2, 3, 8, 8)
            boxes = torch.tensor([[1, 5], [2, 7]])
            yield cut_mix, (images, images.flip(0), boxes)
            yield as_bytes, (images,)
            yield importance_floor, (torch.rand(4, 4),)
            yield brighter, (torch.rand(4), torch.rand(4))
            yield clipped_total, (torch.rand(4),)
            yield row_peaks, (torch.rand(3, 4),)
        ''',
}


@requires_torch
def test_masks_and_single_tensor_reductions(tmp_path):
    write_files(tmp_path, PACKAGE)
    found = break_statuses(cli_findings(tmp_path, "check", "augment", "--show-refuted", cache=tmp_path / "cache"))
    assert ("BRK106", "mix.py", 10, "confirmed") in found  # out[mask] = shuffled[mask]
    assert ("BRK102", "mix.py", 20, "confirmed") in found  # torch.min(weights).item()
    assert ("BRK101", "mix.py", 25, "confirmed") in found  # if torch.max(a, b).mean() > 0.5
    assert ("BRK102", "mix.py", 32, "confirmed") in found  # kept.sum().item(), kept from torch.where(c, x, y)
    assert not {f for f in found if f[1] == "mix.py" and f[2] in (15, 16, 36, 37)}  # uint8 view; max over a dim
    assert not {f for f in found if f[3] in ("refuted", "observed")}
