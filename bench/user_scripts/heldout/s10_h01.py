"""Tiny DDPM-style sampling loop with a hand-written noise scheduler."""
import math

import torch
import torch.nn as nn

torch.manual_seed(0)

CFG = {
    "num_steps": 12,
    "beta_start": 1e-4,
    "beta_end": 0.02,
    "dim": 16,
    "batch": 4,
    "clip_sample": True,
}


class LinearScheduler:
    def __init__(self, num_steps, beta_start, beta_end):
        self.num_steps = num_steps
        self.betas = torch.linspace(beta_start, beta_end, num_steps)
        self.alphas = 1.0 - self.betas
        self.alpha_bars = torch.cumprod(self.alphas, dim=0)

    def timesteps(self):
        return list(range(self.num_steps - 1, -1, -1))

    def coeffs(self, t):
        a = self.alphas[t]
        ab = self.alpha_bars[t]
        b = self.betas[t]
        return a, ab, b


def timestep_embedding(t, dim):
    half = dim // 2
    freqs = torch.exp(-math.log(10000.0) * torch.arange(half, dtype=torch.float32) / half)
    args = float(t) * freqs
    return torch.cat([torch.sin(args), torch.cos(args)], dim=-1)


class Denoiser(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.inp = nn.Linear(dim, 32)
        self.temb = nn.Linear(dim, 32)
        self.mid = nn.Sequential(nn.SiLU(), nn.Linear(32, 32), nn.SiLU())
        self.out = nn.Linear(32, dim)

    def forward(self, x, t):
        emb = timestep_embedding(t, x.shape[-1])
        h = self.inp(x) + self.temb(emb)
        h = self.mid(h)
        return self.out(h)


def step(model, sched, x, t, clip_sample):
    a, ab, b = sched.coeffs(t)
    eps = model(x, t)
    mean = (x - b / torch.sqrt(1.0 - ab) * eps) / torch.sqrt(a)
    if clip_sample:
        mean = mean.clamp(-3.0, 3.0)
    if t > 0:
        noise = torch.randn_like(x)
        mean = mean + torch.sqrt(b) * noise
    return mean


@torch.compile(backend="eager")
def sample(model, sched, x, clip_sample):
    for t in sched.timesteps():
        x = step(model, sched, x, t, clip_sample)
        if torch.isnan(x).any():
            print("nan encountered at step", t)
            break
    return x


if __name__ == "__main__":
    sched = LinearScheduler(CFG["num_steps"], CFG["beta_start"], CFG["beta_end"])
    model = Denoiser(CFG["dim"]).eval()
    with torch.no_grad():
        for run in range(2):
            x0 = torch.randn(CFG["batch"], CFG["dim"])
            out = sample(model, sched, x0, CFG["clip_sample"])
            print(f"run {run}: sample mean={out.mean():.4f} std={out.std():.4f}")
