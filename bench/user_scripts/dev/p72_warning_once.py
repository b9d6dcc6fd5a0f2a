import logging
import torch
import torch.nn as nn

logger = logging.getLogger(__name__)

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.warned = False

    def forward(self, x, use_cache=False):
        if use_cache and self.training:
            logger.warning("use_cache=True is incompatible with training")
            use_cache = False
        return self.fc(x)

b = torch.compile(Block())
b(torch.rand(2, 4), use_cache=True)
