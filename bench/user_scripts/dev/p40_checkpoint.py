import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ff = nn.Sequential(nn.Linear(4, 8), nn.GELU(), nn.Linear(8, 4))

    def forward(self, x):
        if self.training:
            return checkpoint(self.ff, x, use_reentrant=False)
        return self.ff(x)

b = torch.compile(Block())
b(torch.rand(2, 4, requires_grad=True)).sum().backward()
