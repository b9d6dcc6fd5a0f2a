import torch
import torch.nn.functional as F


@torch.compile
def multi_loss(preds, targets, weights):
    losses = [F.mse_loss(p, t) for p, t in zip(preds, targets)]
    total = sum(w * l for w, l in zip(weights, losses))
    worst = max(range(len(losses)), key=lambda i: losses[i])
    return total, worst


multi_loss([torch.randn(3), torch.randn(3)], [torch.randn(3), torch.randn(3)], [0.5, 0.5])
