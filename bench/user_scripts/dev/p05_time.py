import time
import torch

class Timed(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        t0 = time.perf_counter()
        y = self.lin(x)
        self.elapsed = time.perf_counter() - t0
        return y

m = torch.compile(Timed())
m(torch.rand(2, 4))
