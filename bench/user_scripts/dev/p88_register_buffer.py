import torch
import torch.nn as nn

class PosEmb(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        if not hasattr(self, "pos"):
            self.register_buffer("pos", torch.randn(x.shape[1], self.dim))
        return x + self.pos

m = torch.compile(PosEmb(4))
m(torch.rand(2, 3, 4))
