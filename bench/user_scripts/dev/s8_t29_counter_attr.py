import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        if self.calls % 100 == 0:
            print("calls", self.calls)
        return self.fc(x)


net = torch.compile(Net())
for _ in range(3):
    net(torch.randn(2, 4))
