import torch

@torch.compile
def keep_positive(rows):
    kept = [r for r in rows if r.sum() > 0]
    return torch.stack(kept)

keep_positive(torch.tensor([[1.0, 2.0, 3.0], [-1.0, -2.0, -3.0], [0.5, 0.0, 0.0]]))
