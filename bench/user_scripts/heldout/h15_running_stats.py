import torch
import torch.nn as nn

class RunningNorm(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.register_buffer("mean", torch.zeros(dim))
        self.register_buffer("count", torch.zeros(()))

    def forward(self, x):
        if self.training:
            n = x.shape[0]
            self.mean.mul_(self.count / (self.count + n)).add_(x.sum(0) / (self.count + n))
            self.count += n
        return x - self.mean

rn = torch.compile(RunningNorm(4))
print(rn(torch.rand(3, 4)).shape)
