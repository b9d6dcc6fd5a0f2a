import random
import torch

class Aug(torch.nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        self.p = p

    def forward(self, x):
        if random.random() < self.p:
            x = x.flip(-1)
        return x

aug = torch.compile(Aug())
aug(torch.rand(2, 4))
