import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x):
        y = self.fc(x)
        return y[y > 0]


def build_model(width=4):
    return Net(width)


model = torch.compile(build_model())
model(torch.randn(2, 4))
