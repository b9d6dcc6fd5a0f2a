import math
import torch
import torch.nn as nn
import torch.nn.functional as F


def cosine_schedule(T, s=0.008):
    steps = torch.arange(T + 1, dtype=torch.float64) / T
    f = torch.cos((steps + s) / (1 + s) * math.pi / 2) ** 2
    alphas_bar = f / f[0]
    betas = 1 - alphas_bar[1:] / alphas_bar[:-1]
    return betas.clamp(max=0.999).float()


class TimeEmbed(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim
        self.proj = nn.Sequential(nn.Linear(dim, dim), nn.SiLU(), nn.Linear(dim, dim))

    def forward(self, t):
        half = self.dim // 2
        freqs = torch.exp(-math.log(10000) * torch.arange(half) / half)
        args = t.float()[:, None] * freqs[None]
        return self.proj(torch.cat([args.sin(), args.cos()], -1))


class Denoiser(nn.Module):
    def __init__(self, ch=1, hidden=32):
        super().__init__()
        self.temb = TimeEmbed(hidden)
        self.inp = nn.Conv2d(ch, hidden, 3, padding=1)
        self.mid = nn.Conv2d(hidden, hidden, 3, padding=1)
        self.out = nn.Conv2d(hidden, ch, 3, padding=1)

    def forward(self, x, t):
        h = F.silu(self.inp(x))
        h = h + self.temb(t)[:, :, None, None]
        h = F.silu(self.mid(h))
        return self.out(h)


class Diffusion:
    def __init__(self, model, T=50):
        self.model = model
        self.T = T
        self.betas = cosine_schedule(T)
        self.alphas = 1 - self.betas
        self.alpha_bar = torch.cumprod(self.alphas, 0)
        self.eps_fn = torch.compile(self.model, backend="eager")

    def q_sample(self, x0, t, noise):
        ab = self.alpha_bar[t].view(-1, 1, 1, 1)
        return ab.sqrt() * x0 + (1 - ab).sqrt() * noise

    def training_loss(self, x0):
        t = torch.randint(0, self.T, (x0.shape[0],))
        noise = torch.randn_like(x0)
        xt = self.q_sample(x0, t, noise)
        return F.mse_loss(self.eps_fn(xt, t), noise)

    @torch.no_grad()
    def sample(self, shape, log_every=10):
        x = torch.randn(shape)
        for i in reversed(range(self.T)):
            t = torch.full((shape[0],), i, dtype=torch.long)
            eps = self.eps_fn(x, t)
            a, ab, b = self.alphas[i], self.alpha_bar[i], self.betas[i]
            mean = (x - b / (1 - ab).sqrt() * eps) / a.sqrt()
            if i > 0:
                x = mean + b.sqrt() * torch.randn_like(x)
            else:
                x = mean
            if i % log_every == 0:
                print(f"  t={i:3d} std={x.std().item():.3f}")
        return x.clamp(-1, 1)


def main():
    torch.manual_seed(0)
    model = Denoiser()
    diff = Diffusion(model, T=30)
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    for step in range(4):
        x0 = torch.tanh(torch.randn(8, 1, 12, 12))
        loss = diff.training_loss(x0)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"train step {step} loss {loss.item():.4f}")
    samples = diff.sample((4, 1, 12, 12))
    print("samples", tuple(samples.shape), "mean", round(samples.mean().item(), 4))


if __name__ == "__main__":
    main()
