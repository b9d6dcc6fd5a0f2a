import torch
import torch.nn as nn


class Warmup(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("initialized", torch.tensor(False))
        self.scale = nn.Parameter(torch.ones(1))

    def forward(self, x):
        if not self.initialized:
            self.scale.data.copy_(1.0 / x.std().clamp(min=1e-6))
            self.initialized.fill_(True)
        return x * self.scale


torch.compile(Warmup())(torch.randn(8))
