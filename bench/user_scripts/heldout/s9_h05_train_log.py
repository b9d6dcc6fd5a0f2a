import logging

import torch
import torch.nn as nn

log = logging.getLogger("train")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 2))

    def forward(self, x):
        return self.body(x)


def accuracy(logits, y):
    return (logits.argmax(1) == y).float().mean()


model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.1)


@torch.compile
def train_step(x, y, step):
    logits = model(x)
    loss = nn.functional.cross_entropy(logits, y)
    loss.backward()
    opt.step()
    opt.zero_grad()
    acc = accuracy(logits, y)
    if step % 10 == 0:
        log.info("step %d loss %.3f acc %.2f", step, loss.item(), acc.item())
    return loss.detach()


for step in range(3):
    train_step(torch.randn(16, 8), torch.randint(0, 2, (16,)), step)
