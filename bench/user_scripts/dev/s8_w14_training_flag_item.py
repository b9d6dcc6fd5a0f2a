import torch
import torch.nn as nn


class Drop(nn.Module):
    def __init__(self, p=0.1):
        super().__init__()
        self.p = p

    def forward(self, x):
        if self.training and torch.rand(()) < self.p:
            return torch.zeros_like(x)
        return x


torch.compile(Drop())(torch.randn(3))
