import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

T = 50
betas = torch.linspace(1e-4, 0.02, T)
alphas = 1.0 - betas
alpha_bar = torch.cumprod(alphas, dim=0)


def timestep_embedding(t, dim):
    half = dim // 2
    freqs = torch.exp(-math.log(10000) * torch.arange(half, dtype=torch.float32) / half)
    args = t.float()[:, None] * freqs[None]
    return torch.cat([torch.sin(args), torch.cos(args)], dim=-1)


class ResBlock(nn.Module):
    def __init__(self, ch, t_dim):
        super().__init__()
        self.conv1 = nn.Conv2d(ch, ch, 3, padding=1)
        self.conv2 = nn.Conv2d(ch, ch, 3, padding=1)
        self.t_proj = nn.Linear(t_dim, ch)
        self.norm = nn.GroupNorm(4, ch)

    def forward(self, x, temb):
        h = F.silu(self.norm(self.conv1(x)))
        h = h + self.t_proj(temb)[:, :, None, None]
        return x + self.conv2(F.silu(h))


class TinyUNet(nn.Module):
    def __init__(self, ch=16, t_dim=32):
        super().__init__()
        self.t_dim = t_dim
        self.inp = nn.Conv2d(1, ch, 3, padding=1)
        self.down = ResBlock(ch, t_dim)
        self.pool = nn.Conv2d(ch, ch * 2, 4, stride=2, padding=1)
        self.mid = ResBlock(ch * 2, t_dim)
        self.up = nn.ConvTranspose2d(ch * 2, ch, 4, stride=2, padding=1)
        self.dec = ResBlock(ch, t_dim)
        self.out = nn.Conv2d(ch * 2, 1, 3, padding=1)

    def forward(self, x, t):
        temb = timestep_embedding(t, self.t_dim)
        h0 = self.down(self.inp(x), temb)
        h = self.mid(self.pool(h0), temb)
        h = self.dec(self.up(h), temb)
        return self.out(torch.cat([h, h0], dim=1))


def q_sample(x0, t, noise):
    ab = alpha_bar[t].view(-1, 1, 1, 1)
    return ab.sqrt() * x0 + (1 - ab).sqrt() * noise


def make_batch(n=8, size=16):
    # toy "images": random blobs
    yy, xx = np.mgrid[0:size, 0:size]
    imgs = []
    for _ in range(n):
        cx, cy = np.random.randint(4, size - 4, size=2)
        r = np.random.uniform(2, 5)
        imgs.append(((xx - cx) ** 2 + (yy - cy) ** 2 < r ** 2).astype(np.float32) * 2 - 1)
    return torch.tensor(np.stack(imgs))[:, None]


if __name__ == "__main__":
    torch.manual_seed(0)
    np.random.seed(0)
    model = TinyUNet()
    net = torch.compile(model)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
    losses = []
    for step in range(4):
        x0 = make_batch()
        t = torch.randint(0, T, (x0.shape[0],))
        noise = torch.randn_like(x0)
        pred = net(q_sample(x0, t, noise), t)
        loss = F.mse_loss(pred, noise)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(loss.item())
        if step % 2 == 0:
            print(f"step {step} loss {losses[-1]:.4f}")
    if np.isnan(losses).any():
        raise RuntimeError("diverged")
    print("final loss", losses[-1])
