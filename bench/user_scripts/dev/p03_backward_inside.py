import torch
import torch.nn as nn

model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)

@torch.compile
def train_step(x, y):
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    return loss

train_step(torch.rand(3, 4), torch.rand(3, 1))
