import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(11)


class VAE(nn.Module):
    def __init__(self, in_dim=64, hidden=48, latent=8):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU())
        self.fc_mu = nn.Linear(hidden, latent)
        self.fc_logvar = nn.Linear(hidden, latent)
        self.decoder = nn.Sequential(nn.Linear(latent, hidden), nn.ReLU(), nn.Linear(hidden, in_dim))

    def reparameterize(self, mu, logvar):
        if self.training:
            std = torch.exp(0.5 * logvar)
            return mu + std * torch.randn_like(std)
        return mu

    def forward(self, x):
        h = self.encoder(x.view(x.size(0), -1))
        mu, logvar = self.fc_mu(h), self.fc_logvar(h)
        z = self.reparameterize(mu, logvar)
        return self.decoder(z), mu, logvar


def vae_loss(recon_logits, x, mu, logvar, beta):
    bce = F.binary_cross_entropy_with_logits(recon_logits, x.view(x.size(0), -1), reduction="sum") / x.size(0)
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp()) / x.size(0)
    return bce + beta * kld, bce, kld


def beta_schedule(step, warmup=20, max_beta=1.0):
    return min(max_beta, max_beta * step / warmup)


def make_binary_images(n):
    # blobs on an 8x8 grid
    imgs = torch.zeros(n, 8, 8)
    centers = torch.randint(1, 7, (n, 2))
    for i, (cy, cx) in enumerate(centers.tolist()):
        imgs[i, cy - 1:cy + 2, cx - 1:cx + 2] = 1.0
    return imgs


class AverageMeter:
    def __init__(self):
        self.reset()

    def reset(self):
        self.sum, self.count = 0.0, 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


vae = VAE()
opt = torch.optim.Adam(vae.parameters(), lr=3e-3)
model = torch.compile(vae, backend="eager")
data = make_binary_images(256)
global_step = 0

for epoch in range(4):
    meters = {"loss": AverageMeter(), "bce": AverageMeter(), "kld": AverageMeter()}
    vae.train()
    for i in range(0, len(data), 32):
        x = data[i:i + 32]
        beta = beta_schedule(global_step)
        recon, mu, logvar = model(x)
        loss, bce, kld = vae_loss(recon, x, mu, logvar, beta)
        opt.zero_grad()
        loss.backward()
        opt.step()
        global_step += 1
        for k, v in zip(("loss", "bce", "kld"), (loss, bce, kld)):
            meters[k].update(v.item(), x.size(0))
    summary = " ".join(f"{k}={m.avg:.3f}" for k, m in meters.items())
    print(f"epoch {epoch} beta={beta:.2f} {summary}")

vae.eval()
with torch.no_grad():
    recon, mu, _ = model(data[:4])
    err = ((torch.sigmoid(recon) > 0.5).float() != data[:4].view(4, -1)).float().mean()
    z = torch.randn(3, 8)
    gen = torch.sigmoid(vae.decoder(z)).view(3, 8, 8)
print(f"recon pixel error {err.item():.3f}; generated mean intensity {gen.mean().item():.3f}")
