import math

import torch
import torch.nn as nn


class Denoiser(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim + 1, 64), nn.SiLU(), nn.Linear(64, dim))

    def forward(self, x, t):
        return self.net(torch.cat([x, t.expand(x.shape[0], 1)], dim=1))


def cosine_alpha_bar(t):
    return math.cos((t + 0.008) / 1.008 * math.pi / 2) ** 2


@torch.compile
def sample_step(model, x, t, t_prev):
    a, a_prev = cosine_alpha_bar(t), cosine_alpha_bar(t_prev)
    eps = model(x, torch.tensor([[t]]))
    x0 = (x - math.sqrt(1 - a) * eps) / math.sqrt(a)
    x0 = x0.clamp(-1, 1)
    if t_prev <= 0:
        return x0
    return math.sqrt(a_prev) * x0 + math.sqrt(1 - a_prev) * eps


model = Denoiser()
x = torch.randn(4, 16)
steps = torch.linspace(1, 0, 6)
for t, t_prev in zip(steps[:-1], steps[1:]):
    x = sample_step(model, x, t, t_prev)
