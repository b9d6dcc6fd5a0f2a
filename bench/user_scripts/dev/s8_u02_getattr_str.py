import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = "gelu"
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        fn = getattr(torch.nn.functional, self.act)
        return fn(self.fc(x))


torch.compile(Net())(torch.randn(2, 4))
