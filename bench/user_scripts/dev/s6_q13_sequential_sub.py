import torch
from torch import nn


class Stack(nn.Sequential):
    def forward(self, x):
        for i, layer in enumerate(self):
            x = layer(x)
            if x.isnan().any():
                raise ValueError(f"nan after layer {i}")
        return x


net = torch.compile(Stack(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 2)))
net(torch.randn(3, 4))
