import torch

@torch.compile
def norm_scores(scores):
    vals = scores.tolist()
    best = max(vals)
    return scores / best

norm_scores(torch.rand(5))
