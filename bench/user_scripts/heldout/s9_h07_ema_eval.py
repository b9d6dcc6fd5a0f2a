import copy

import torch
import torch.nn as nn


class EMA:
    def __init__(self, model, decay=0.99):
        self.shadow = copy.deepcopy(model)
        self.decay = decay

    @torch.no_grad()
    def update(self, model):
        for ema_p, p in zip(self.shadow.parameters(), model.parameters()):
            ema_p.mul_(self.decay).add_(p.detach(), alpha=1 - self.decay)


model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
ema = EMA(model)


@torch.compile
def evaluate(x, y):
    with torch.no_grad():
        pred = ema.shadow(x)
    err = (pred - y).abs()
    worst = err.max()
    if worst > 1.0:
        print("large error", float(worst))
    return err.mean()


ema.update(model)
evaluate(torch.randn(8, 4), torch.randn(8, 1))
