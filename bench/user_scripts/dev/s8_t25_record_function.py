import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)

    def forward(self, x):
        with torch.profiler.record_function("block"):
            return self.lin(x).relu()


torch.compile(Block())(torch.randn(2, 8))
