import logging

import torch

log = logging.getLogger(__name__)


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)

    def forward(self, x):
        log.info("block input %s", tuple(x.shape))
        return self.lin(x).relu()


torch.compile(Block())(torch.randn(2, 8))
