import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        y = self.fc(x)
        return y, y.sum().item()


net = Net()
fast = torch.compile(net.forward)
fast(torch.randn(2, 4))
