import torch
import torch.nn as nn

def drop_path(x, p, training):
    if p == 0.0 or not training:
        return x
    keep = 1 - p
    mask = x.new_empty(x.shape[0], 1).bernoulli_(keep)
    return x * mask / keep

class Block(nn.Module):
    def __init__(self, p=0.1):
        super().__init__()
        self.p = p
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        return x + drop_path(self.fc(x), self.p, self.training)

b = torch.compile(Block())
print(b(torch.rand(2, 4)).shape)
