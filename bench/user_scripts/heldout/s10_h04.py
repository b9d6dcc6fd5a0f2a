"""Tensor-level data augmentation pipeline for a batch of small images."""
import random

import torch

torch.manual_seed(4)
random.seed(4)

AUG_CFG = {
    "flip_prob": 0.5,
    "crop": 12,
    "pad": 2,
    "cutout": 4,
    "jitter": 0.1,
    "mean": [0.5, 0.5, 0.5],
    "std": [0.25, 0.25, 0.25],
}


class RandomState:
    """Keeps per-call random decisions so they can be logged."""

    def __init__(self, seed):
        self.gen = torch.Generator().manual_seed(seed)
        self.history = []

    def coin(self, p):
        r = torch.rand(1, generator=self.gen)
        self.history.append(r)
        return r < p

    def offset(self, hi):
        return random.randint(0, hi)


def pad_reflect(x, pad):
    return torch.nn.functional.pad(x, (pad, pad, pad, pad), mode="reflect")


def random_crop(x, size, rs):
    h, w = x.shape[-2:]
    top = rs.offset(h - size)
    left = rs.offset(w - size)
    return x[..., top:top + size, left:left + size]


def color_jitter(x, strength):
    b = x.shape[0]
    scale = 1.0 + strength * (torch.rand(b, 1, 1, 1) * 2 - 1)
    shift = strength * (torch.rand(b, 1, 1, 1) * 2 - 1)
    return (x * scale + shift).clamp(0.0, 1.0)


def cutout(x, size):
    b, c, h, w = x.shape
    cy = torch.randint(0, h, (b,))
    cx = torch.randint(0, w, (b,))
    ys = torch.arange(h).view(1, h, 1)
    xs = torch.arange(w).view(1, 1, w)
    mask = ((ys - cy.view(b, 1, 1)).abs() <= size // 2) & ((xs - cx.view(b, 1, 1)).abs() <= size // 2)
    return x.masked_fill(mask.unsqueeze(1), 0.0)


def normalize(x, mean, std):
    m = torch.tensor(mean).view(1, -1, 1, 1)
    s = torch.tensor(std).view(1, -1, 1, 1)
    return (x - m) / s


@torch.compile(backend="eager")
def augment(x, cfg, rs):
    if rs.coin(cfg["flip_prob"]):
        x = x.flip(-1)
    x = pad_reflect(x, cfg["pad"])
    x = random_crop(x, cfg["crop"], rs)
    x = color_jitter(x, cfg["jitter"])
    if cfg["cutout"] > 0:
        x = cutout(x, cfg["cutout"])
    return normalize(x, cfg["mean"], cfg["std"])


if __name__ == "__main__":
    rs = RandomState(123)
    images = torch.rand(6, 3, 12, 12)
    for i in range(3):
        out = augment(images, AUG_CFG, rs)
        print(f"batch {i}: shape={tuple(out.shape)} mean={out.mean():.3f} zeros={(out == out.min()).sum().item()}")
    print("coin draws:", len(rs.history))
