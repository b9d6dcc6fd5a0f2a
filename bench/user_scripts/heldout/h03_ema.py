import torch
import torch.nn as nn

class EMA:
    def __init__(self, model, decay=0.99):
        self.decay = decay
        self.shadow = {k: v.detach().clone() for k, v in model.state_dict().items()}

    def update(self, model):
        for k, v in model.state_dict().items():
            self.shadow[k].mul_(self.decay).add_(v.detach(), alpha=1 - self.decay)

net = nn.Linear(4, 2)
ema = EMA(net)

@torch.compile
def train_step(x):
    out = net(x).sum()
    ema.update(net)
    return out

print(train_step(torch.rand(3, 4)))
