import time

import torch
import torch.nn as nn
import torch.nn.functional as F


LATENT_DIM = 16
DATA_DIM = 8


class Generator(nn.Module):
    def __init__(self, latent_dim, out_dim, hidden=32):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(latent_dim, hidden),
            nn.LeakyReLU(0.2),
            nn.Linear(hidden, hidden),
            nn.LeakyReLU(0.2),
            nn.Linear(hidden, out_dim),
        )

    def forward(self, z):
        return torch.tanh(self.net(z))


class Discriminator(nn.Module):
    def __init__(self, in_dim, hidden=32):
        super().__init__()
        self.fc1 = nn.Linear(in_dim, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, 1)

    def forward(self, x):
        h = F.leaky_relu(self.fc1(x), 0.2)
        h = F.leaky_relu(self.fc2(h), 0.2)
        return self.out(h).squeeze(-1)


def sample_real(n):
    # two gaussian blobs as "real" data
    centers = torch.tensor([[0.5] * DATA_DIM, [-0.5] * DATA_DIM])
    idx = torch.randint(0, 2, (n,))
    return centers[idx] + 0.1 * torch.randn(n, DATA_DIM)


def gradient_penalty(disc, real, fake):
    alpha = torch.rand(real.size(0), 1)
    interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    d_interp = disc(interp)
    grads = torch.autograd.grad(
        outputs=d_interp,
        inputs=interp,
        grad_outputs=torch.ones_like(d_interp),
        create_graph=True,
        retain_graph=True,
    )[0]
    grad_norm = grads.view(grads.size(0), -1).norm(2, dim=1)
    return ((grad_norm - 1) ** 2).mean()


class GANTrainer:
    def __init__(self, gen, disc, gp_weight=10.0, n_critic=2):
        self.gen = gen
        self.disc = disc
        self.gp_weight = gp_weight
        self.n_critic = n_critic
        self.opt_g = torch.optim.Adam(gen.parameters(), lr=1e-3, betas=(0.5, 0.9))
        self.opt_d = torch.optim.Adam(disc.parameters(), lr=1e-3, betas=(0.5, 0.9))
        self.history = {"d_loss": [], "g_loss": [], "gp": []}
        self.step_count = 0

    @torch.compile(backend="eager")
    def train_step(self, real):
        batch_size = real.size(0)
        for _ in range(self.n_critic):
            z = torch.randn(batch_size, LATENT_DIM)
            fake = self.gen(z).detach()
            d_real = self.disc(real).mean()
            d_fake = self.disc(fake).mean()
            gp = gradient_penalty(self.disc, real, fake)
            d_loss = d_fake - d_real + self.gp_weight * gp
            self.opt_d.zero_grad()
            d_loss.backward()
            self.opt_d.step()

        z = torch.randn(batch_size, LATENT_DIM)
        g_loss = -self.disc(self.gen(z)).mean()
        self.opt_g.zero_grad()
        g_loss.backward()
        self.opt_g.step()

        self.history["d_loss"].append(d_loss.item())
        self.history["g_loss"].append(g_loss.item())
        self.history["gp"].append(gp.item())
        self.step_count += 1
        if self.step_count % 1 == 0:
            print(f"[step {self.step_count}] d_loss={d_loss.item():.4f} "
                  f"g_loss={g_loss.item():.4f} gp={gp.item():.4f}")
        return d_loss.detach(), g_loss.detach()


def main():
    torch.manual_seed(0)
    gen = Generator(LATENT_DIM, DATA_DIM)
    disc = Discriminator(DATA_DIM)
    trainer = GANTrainer(gen, disc)
    t0 = time.time()
    for _ in range(3):
        real = sample_real(16)
        trainer.train_step(real)
    print("mean d_loss:", sum(trainer.history["d_loss"]) / len(trainer.history["d_loss"]))
    print("elapsed %.2fs" % (time.time() - t0))


if __name__ == "__main__":
    main()
