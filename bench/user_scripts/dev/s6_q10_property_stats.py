import torch
from torch import nn


class Tracker(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("running", torch.zeros(4))

    @property
    def peak(self):
        return float(self.running.max())

    def forward(self, x):
        self.running.copy_(torch.maximum(self.running, x.abs().amax(0)))
        return x / (self.peak + 1e-6)


tr = torch.compile(Tracker())
tr(torch.randn(3, 4))
