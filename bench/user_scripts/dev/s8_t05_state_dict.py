import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        n_params = sum(v.numel() for v in self.state_dict().values())
        return self.fc(x) * n_params


torch.compile(Net())(torch.randn(2, 4))
