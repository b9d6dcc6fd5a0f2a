import torch
import torch.nn as nn

class Guarded(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        y = self.fc(x)
        if torch.any(torch.isnan(y)):
            raise RuntimeError("nan")
        return y

g = torch.compile(Guarded())
g(torch.rand(2, 4))
