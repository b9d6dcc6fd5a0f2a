from dataclasses import dataclass
import torch
import torch.nn as nn

@dataclass
class Config:
    dim: int = 8
    use_bias: bool = True
    dropout: float = 0.1

class MLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.fc = nn.Linear(cfg.dim, cfg.dim, bias=cfg.use_bias)

    def forward(self, x):
        h = self.fc(x)
        if self.cfg.dropout > 0:
            h = nn.functional.dropout(h, self.cfg.dropout, self.training)
        if h.norm() > 10:
            h = h / h.norm()
        return h

mlp = torch.compile(MLP(Config()))
mlp(torch.rand(2, 8))
