import torch
from torch import nn


def windows(x, size):
    for start in range(0, x.shape[-1], size):
        yield x[..., start:start + size]


def pairs(x, y):
    for i in range(0, x.shape[0], 2):
        yield x[i:i + 2], y[i:i + 2]


def steps(n):
    for i in range(n):
        yield i * 2


def rescale(t):
    if t.abs().mean() > 1.0:
        t = t / t.abs().max()
    return t


class Heads(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = nn.ModuleDict({"a": nn.Linear(4, 4), "b": nn.Linear(4, 4)})

    def forward(self, x, y):
        for a, b in pairs(x, y):
            x = x + (a * b).sum()
        for k in steps(3):
            if k > 2:
                x = x * 2
        outs = {k: h(x) for k, h in self.heads.items()}
        best = sorted(outs.items(), key=lambda kv: kv[1].mean())[0][0]
        named = sorted(outs.items(), key=lambda kv: kv[0])
        for h in self.heads.values():
            if h(x).sum() > 0:
                x = -x
        return x, best, named


class Windowed(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        outs = []
        for w in windows(x, 4):
            outs.append(self.proj(rescale(w)))
        y = torch.cat(outs, dim=-1)
        print("windows", len(outs))
        return y.relu()


heads = torch.compile(Heads())
windowed = torch.compile(Windowed())
for _ in range(2):
    heads(torch.randn(4, 4), torch.randn(4, 4))
    windowed(torch.randn(2, 16))
