import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    @torch.compile
    def forward(self, x):
        y = self.fc(x)
        return y.tolist()


Net()(torch.randn(2, 4))
