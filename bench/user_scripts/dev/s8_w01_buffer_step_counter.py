import torch
import torch.nn as nn


class EMA(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.register_buffer("steps", torch.zeros((), dtype=torch.long))
        self.register_buffer("avg", torch.zeros(dim))

    def forward(self, x):
        self.steps += 1
        decay = min(0.999, (1 + self.steps) / (10 + self.steps))
        self.avg.mul_(decay).add_(x.mean(0) * (1 - decay))
        return self.avg


torch.compile(EMA(4))(torch.randn(3, 4))
