import math
import random
import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self, d=16, p=0.1):
        super().__init__()
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)
        self.p = p

    def forward(self, x):
        h = F.gelu(self.fc1(x))
        if self.training and random.random() < self.p:
            h = h * 0
        return self.fc2(h)


def cosine_lr(step, total, base=1e-3):
    return base * 0.5 * (1 + math.cos(math.pi * step / total))


@torch.compile
def train_step(model, opt, x, y, step):
    for group in opt.param_groups:
        group["lr"] = cosine_lr(step, 100)
    pred = model(x)
    loss = F.mse_loss(pred, y)
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    if step % 10 == 0:
        print(f"step {step} loss {loss.item():.4f}")
    return loss.detach()


model = MLP()
opt = torch.optim.AdamW(model.parameters())
for step in range(3):
    train_step(model, opt, torch.randn(8, 16), torch.randn(8, 16), step)
