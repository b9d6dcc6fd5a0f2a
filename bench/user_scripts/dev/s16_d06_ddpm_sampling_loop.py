import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(10)

T_STEPS = 50


def cosine_beta_schedule(timesteps, s=0.008):
    steps = timesteps + 1
    x = torch.linspace(0, timesteps, steps)
    alphas_cumprod = torch.cos(((x / timesteps) + s) / (1 + s) * math.pi * 0.5) ** 2
    alphas_cumprod = alphas_cumprod / alphas_cumprod[0]
    betas = 1 - (alphas_cumprod[1:] / alphas_cumprod[:-1])
    return torch.clip(betas, 0.0001, 0.9999)


betas = cosine_beta_schedule(T_STEPS)
alphas = 1.0 - betas
alphas_cumprod = torch.cumprod(alphas, dim=0)
alphas_cumprod_prev = F.pad(alphas_cumprod[:-1], (1, 0), value=1.0)
posterior_variance = betas * (1.0 - alphas_cumprod_prev) / (1.0 - alphas_cumprod)


def extract(a, t, x_shape):
    out = a.gather(-1, t)
    return out.reshape(t.shape[0], *((1,) * (len(x_shape) - 1)))


class SinusoidalEmbedding(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, t):
        half = self.dim // 2
        freqs = torch.exp(-math.log(10000) * torch.arange(half) / (half - 1))
        args = t.float()[:, None] * freqs[None]
        return torch.cat([args.sin(), args.cos()], dim=-1)


class Denoiser(nn.Module):
    def __init__(self, data_dim=2, hidden=64):
        super().__init__()
        self.time_emb = nn.Sequential(SinusoidalEmbedding(16), nn.Linear(16, hidden), nn.SiLU())
        self.inp = nn.Linear(data_dim, hidden)
        self.blocks = nn.ModuleList([nn.Linear(hidden, hidden) for _ in range(3)])
        self.out = nn.Linear(hidden, data_dim)

    def forward(self, x, t):
        h = self.inp(x) + self.time_emb(t)
        for blk in self.blocks:
            h = h + F.silu(blk(h))
        return self.out(h)


def q_sample(x0, t, noise):
    return extract(alphas_cumprod, t, x0.shape).sqrt() * x0 + \
        extract(1 - alphas_cumprod, t, x0.shape).sqrt() * noise


model = Denoiser()
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
net = torch.compile(model, backend="eager")


@torch.no_grad()
def p_sample_loop(shape):
    x = torch.randn(shape)
    for i in reversed(range(T_STEPS)):
        t = torch.full((shape[0],), i, dtype=torch.long)
        eps = net(x, t)
        coef = extract(betas, t, x.shape) / extract(1 - alphas_cumprod, t, x.shape).sqrt()
        mean = (x - coef * eps) / extract(alphas, t, x.shape).sqrt()
        if i > 0:
            x = mean + extract(posterior_variance, t, x.shape).sqrt() * torch.randn_like(x)
        else:
            x = mean
    return x


def two_moons(n):
    theta = torch.rand(n) * math.pi
    which = torch.rand(n) < 0.5
    x = torch.where(which, torch.cos(theta), 1 - torch.cos(theta))
    y = torch.where(which, torch.sin(theta), 0.5 - torch.sin(theta))
    return torch.stack([x, y], dim=1) + 0.05 * torch.randn(n, 2)


for step in range(40):
    x0 = two_moons(128)
    t = torch.randint(0, T_STEPS, (x0.size(0),))
    noise = torch.randn_like(x0)
    loss = F.mse_loss(net(q_sample(x0, t, noise), t), noise)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(f"step {step:3d} loss {loss.item():.4f}")

samples = p_sample_loop((64, 2))
print("sample mean", samples.mean(0).tolist(), "std", samples.std(0).tolist())
