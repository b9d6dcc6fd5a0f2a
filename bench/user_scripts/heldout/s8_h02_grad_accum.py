import torch
import torch.nn as nn
import torch.nn.functional as F

net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
opt = torch.optim.AdamW(net.parameters(), lr=1e-3)


@torch.compile
def train_step(x, y, accum_steps):
    loss = F.cross_entropy(net(x), y) / accum_steps
    loss.backward()
    stats = {"loss": loss.detach(), "acc": (net(x).argmax(-1) == y).float().mean()}
    if stats["acc"] > 0.99:
        stats["early_stop"] = True
    return stats


for step in range(4):
    x = torch.randn(8, 16)
    y = torch.randint(0, 4, (8,))
    out = train_step(x, y, 2)
    if (step + 1) % 2 == 0:
        opt.step()
        opt.zero_grad()
