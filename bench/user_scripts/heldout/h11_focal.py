import torch
import torch.nn.functional as F

@torch.compile
def focal_loss(logits, targets, gamma=2.0, alpha=None):
    ce = F.cross_entropy(logits, targets, reduction="none")
    p = torch.exp(-ce)
    loss = (1 - p) ** gamma * ce
    if alpha is not None:
        loss = alpha[targets] * loss
    num_pos = (targets > 0).sum()
    return loss.sum() / max(num_pos, 1)

print(focal_loss(torch.rand(6, 3), torch.tensor([0, 1, 2, 1, 0, 2]), alpha=torch.tensor([0.2, 0.4, 0.4])))
