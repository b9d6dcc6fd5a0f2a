import math
import torch
import torch.nn as nn
import torch.nn.functional as F
from dataclasses import dataclass, field


@dataclass
class TrainCfg:
    in_dim: int = 64
    latent: int = 8
    hidden: int = 48
    batch: int = 16
    steps: int = 8
    lr: float = 2e-3
    kl_warmup: int = 5
    free_bits: float = 0.1
    log: list = field(default_factory=list)


class VAE(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(cfg.in_dim, cfg.hidden), nn.ReLU())
        self.mu = nn.Linear(cfg.hidden, cfg.latent)
        self.logvar = nn.Linear(cfg.hidden, cfg.latent)
        self.dec = nn.Sequential(nn.Linear(cfg.latent, cfg.hidden), nn.ReLU(), nn.Linear(cfg.hidden, cfg.in_dim))

    def forward(self, x):
        h = self.enc(x)
        mu, logvar = self.mu(h), self.logvar(h).clamp(-8, 8)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.dec(z), mu, logvar


def kl_weight(step, warmup):
    if step >= warmup:
        return 1.0
    return 0.5 * (1 - math.cos(math.pi * step / warmup))


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.model = VAE(cfg)
        self.opt = torch.optim.Adam(self.model.parameters(), lr=cfg.lr)
        self.step_fn = torch.compile(self._step, backend="eager")

    def _step(self, x, beta):
        recon, mu, logvar = self.model(x)
        rec = F.binary_cross_entropy_with_logits(recon, x, reduction="sum") / x.shape[0]
        kl_per_dim = -0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).mean(0)
        kl = torch.clamp(kl_per_dim, min=self.cfg.free_bits).sum()
        active = (kl_per_dim > self.cfg.free_bits).sum()
        loss = rec + beta * kl
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return {"loss": loss.detach(), "rec": rec.detach(), "kl": kl.detach(), "active": active}

    def fit(self, data):
        for step in range(self.cfg.steps):
            idx = torch.randint(0, data.shape[0], (self.cfg.batch,))
            beta = kl_weight(step, self.cfg.kl_warmup)
            out = self.step_fn(data[idx], beta)
            row = {k: v.item() for k, v in out.items()}
            row["beta"] = beta
            self.cfg.log.append(row)
            print(f"step {step} " + " ".join(f"{k}={v:.3f}" for k, v in row.items()))


def main():
    torch.manual_seed(0)
    cfg = TrainCfg()
    protos = (torch.rand(4, cfg.in_dim) > 0.5).float()
    data = protos[torch.randint(0, 4, (128,))]
    data = torch.where(torch.rand_like(data) < 0.05, 1 - data, data)
    trainer = Trainer(cfg)
    trainer.fit(data)
    with torch.no_grad():
        z = torch.randn(4, cfg.latent)
        samples = torch.sigmoid(trainer.model.dec(z)) > 0.5
    print("sample density", samples.float().mean().item())
    print("final kl", cfg.log[-1]["kl"])


if __name__ == "__main__":
    main()
