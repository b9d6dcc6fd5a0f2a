import math
import torch

@torch.compile
def safe_loss(pred, target):
    loss = torch.nn.functional.mse_loss(pred, target)
    if math.isnan(loss.item()):
        return torch.zeros(())
    return loss

safe_loss(torch.randn(4), torch.randn(4))
