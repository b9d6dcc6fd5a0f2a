import torch
import torch.nn as nn


class MultiHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = nn.ModuleDict({"a": nn.Linear(4, 2), "b": nn.Linear(4, 3)})

    def forward(self, x):
        out = {k: h(x) for k, h in self.heads.items()}
        stats = {k: v.mean().item() for k, v in out.items()}
        return out, stats


torch.compile(MultiHead())(torch.randn(2, 4))
