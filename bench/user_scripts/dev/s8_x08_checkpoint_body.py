import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def _inner(self, x):
        y = self.fc(x)
        if y.mean() > 0:
            y = y * 2
        return y

    def forward(self, x):
        return checkpoint(self._inner, x, use_reentrant=False)


torch.compile(Block())(torch.randn(2, 4, requires_grad=True))
