import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        return checkpoint(self.lin, x, use_reentrant=True)


blk = torch.compile(Block())
blk(torch.randn(2, 4, requires_grad=True)).sum().backward()
