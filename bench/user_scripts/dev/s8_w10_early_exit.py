import torch
import torch.nn as nn


class EarlyExit(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList(nn.Linear(4, 4) for _ in range(3))
        self.exit = nn.Linear(4, 2)

    def forward(self, x):
        for block in self.blocks:
            x = block(x).relu()
            conf = self.exit(x).softmax(-1).max(-1).values
            if (conf > 0.9).all():
                break
        return self.exit(x)


torch.compile(EarlyExit())(torch.randn(2, 4))
