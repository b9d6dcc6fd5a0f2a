import torch


@torch.compile
def step(x, w):
    with torch.autograd.set_detect_anomaly(True):
        loss = (x @ w).sum()
    return loss


step(torch.randn(2, 3), torch.randn(3, 1, requires_grad=True))
