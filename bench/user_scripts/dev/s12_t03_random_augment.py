import math
import random

import torch
import torch.nn as nn


class RandomAugment(nn.Module):
    def __init__(self, max_shift=3, p_flip=0.5):
        super().__init__()
        self.max_shift = max_shift
        self.p_flip = p_flip
        self.proj = nn.Linear(16, 16)

    def forward(self, x):
        shift = random.randint(0, self.max_shift)
        if shift > 0:
            x = torch.roll(x, shifts=shift, dims=-1)
        angle = math.pi * random.uniform(-15.0, 15.0) / 180.0
        x = x * math.cos(angle)
        return self.proj(x)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.aug = RandomAugment()
        self.head = nn.Linear(16, 4)

    def forward(self, x):
        if self.training:
            x = self.aug(x)
        return self.head(x)


model = torch.compile(Model())
for step in range(3):
    out = model(torch.randn(2, 16))
print(out.shape)
