import torch
import torch.nn as nn


class GradScale(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.seen = []

    def forward(self, x):
        y = self.fc(x)
        if y.requires_grad:
            y.register_hook(lambda g: self.seen.append(g.norm()))
        return y


torch.compile(GradScale())(torch.randn(2, 4)).sum().backward()
