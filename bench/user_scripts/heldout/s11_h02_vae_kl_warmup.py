import math
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F


class KLWarmup:
    """Linearly (or sigmoid-ly) anneal the KL weight from 0 to max_beta."""

    def __init__(self, warmup_steps=10, max_beta=1.0, mode="linear"):
        self.warmup_steps = warmup_steps
        self.max_beta = max_beta
        self.mode = mode
        self.step_num = 0

    def beta(self):
        if self.step_num >= self.warmup_steps:
            return self.max_beta
        frac = self.step_num / self.warmup_steps
        if self.mode == "sigmoid":
            frac = 1.0 / (1.0 + math.exp(-12 * (frac - 0.5)))
        return self.max_beta * frac

    def step(self):
        self.step_num += 1


class LossHistory:
    def __init__(self):
        self.values = defaultdict(list)

    def update(self, **kwargs):
        for k, v in kwargs.items():
            if torch.is_tensor(v):
                v = v.item()
            self.values[k].append(v)

    def last(self, key):
        return self.values[key][-1] if self.values[key] else float("nan")

    def summary(self):
        return {k: sum(v) / len(v) for k, v in self.values.items()}


class VAE(nn.Module):
    def __init__(self, in_dim=32, hidden=64, latent=8):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU())
        self.mu = nn.Linear(hidden, latent)
        self.logvar = nn.Linear(hidden, latent)
        self.dec = nn.Sequential(
            nn.Linear(latent, hidden), nn.ReLU(), nn.Linear(hidden, in_dim)
        )

    def reparameterize(self, mu, logvar):
        if self.training:
            std = torch.exp(0.5 * logvar)
            eps = torch.randn_like(std)
            return mu + eps * std
        return mu

    def forward(self, x):
        h = self.enc(x)
        mu, logvar = self.mu(h), self.logvar(h)
        z = self.reparameterize(mu, logvar)
        return self.dec(z), mu, logvar


def vae_loss(recon, x, mu, logvar, beta):
    recon_loss = F.binary_cross_entropy_with_logits(recon, x, reduction="sum") / x.size(0)
    kl = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp()) / x.size(0)
    return recon_loss + beta * kl, recon_loss, kl


model = VAE()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
schedule = KLWarmup(warmup_steps=4, mode="sigmoid")
history = LossHistory()


@torch.compile(backend="eager")
def train_step(x):
    model.train()
    recon, mu, logvar = model(x)
    beta = schedule.beta()
    loss, rec, kl = vae_loss(recon, x, mu, logvar, beta)
    opt.zero_grad()
    loss.backward()
    opt.step()
    schedule.step()
    history.update(loss=loss, recon=rec, kl=kl, beta=beta)
    if kl.item() > 50.0:
        print("warning: KL is exploding", kl.item())
    return loss


def main():
    torch.manual_seed(0)
    for i in range(3):
        x = (torch.rand(16, 32) > 0.5).float()
        loss = train_step(x)
        print(f"iter {i}: loss={loss.item():.3f} beta={history.last('beta'):.3f} "
              f"kl={history.last('kl'):.3f}")
    print("summary:", {k: round(v, 3) for k, v in history.summary().items()})


if __name__ == "__main__":
    main()
