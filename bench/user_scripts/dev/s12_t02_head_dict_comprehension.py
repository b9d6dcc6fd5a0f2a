import torch
from torch import nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 2)

    def forward(self, h):
        out = self.proj(h)
        return out[out > 0]


class Net(nn.Module):
    def __init__(self, n=2):
        super().__init__()
        self.n = n
        for i in range(n):
            setattr(self, f"layer{i}", nn.Linear(8, 8))
        self.heads = nn.ModuleDict({"a": Head(), "b": Head()})

    def forward(self, x):
        for i in range(self.n):
            x = getattr(self, f"layer{i}")(x)
        return {k: head(x) for k, head in self.heads.items()}


model = torch.compile(Net())
print({k: v.shape for k, v in model(torch.randn(2, 8)).items()})
