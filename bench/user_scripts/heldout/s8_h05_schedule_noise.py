import math
import torch


def cosine_alpha_bar(t, s=0.008):
    return math.cos((t + s) / (1 + s) * math.pi / 2) ** 2


@torch.compile
def add_noise(x0, noise, t, total=1000):
    alpha = cosine_alpha_bar(t / total)
    return math.sqrt(alpha) * x0 + math.sqrt(1 - alpha) * noise


x0 = torch.randn(4, 3)
for t in torch.randint(0, 1000, (3,)):
    add_noise(x0, torch.randn_like(x0), t)
