import random
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

cfg = {
    "batch_size": 8,
    "in_dim": 32,
    "hidden": 64,
    "proj_dim": 16,
    "temperature": 0.5,
    "lr": 1e-3,
    "steps": 4,
}


class Encoder(nn.Module):
    def __init__(self, in_dim, hidden, proj_dim):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Linear(in_dim, hidden), nn.BatchNorm1d(hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(),
        )
        self.head = nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, proj_dim))

    def forward(self, x):
        h = self.backbone(x)
        return self.head(h)


def augment(x):
    # random jitter + random feature dropout, like a cheap tabular "view"
    noise_scale = random.uniform(0.05, 0.2)
    x = x + noise_scale * torch.randn_like(x)
    mask = (torch.rand_like(x) > 0.1).float()
    return x * mask


def nt_xent(z1, z2, temperature):
    n = z1.shape[0]
    z = F.normalize(torch.cat([z1, z2], dim=0), dim=1)
    sim = z @ z.t() / temperature
    sim.fill_diagonal_(float("-inf"))
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
    return F.cross_entropy(sim, targets)


model = Encoder(cfg["in_dim"], cfg["hidden"], cfg["proj_dim"])
opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
compiled = torch.compile(model)


def train_step(batch):
    v1, v2 = augment(batch), augment(batch)
    z1 = compiled(v1)
    z2 = compiled(v2)
    assert z1.shape == (batch.shape[0], cfg["proj_dim"])
    loss = nt_xent(z1, z2, cfg["temperature"])
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        acc = (F.normalize(z1, dim=1) @ F.normalize(z2, dim=1).t()).argmax(1)
        acc = (acc == torch.arange(len(acc))).float().mean().item()
    return loss.item(), acc


if __name__ == "__main__":
    torch.manual_seed(0)
    random.seed(0)
    data = torch.from_numpy(np.random.randn(64, cfg["in_dim"]).astype(np.float32))
    history = []
    for step in range(cfg["steps"]):
        idx = np.random.choice(len(data), cfg["batch_size"], replace=False)
        loss, acc = train_step(data[idx])
        history.append(loss)
        print(f"step {step}: loss={loss:.4f} top1={acc:.2f}")
    print("mean loss", sum(history) / len(history))
