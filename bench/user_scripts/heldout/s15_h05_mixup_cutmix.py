import random
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


AUG = {"mixup_alpha": 0.4, "cutmix_alpha": 1.0, "p_cutmix": 0.5, "num_classes": 10}


def one_hot(y, n, smoothing=0.1):
    off = smoothing / n
    out = torch.full((y.shape[0], n), off)
    out.scatter_(1, y[:, None], 1.0 - smoothing + off)
    return out


def rand_bbox(h, w, lam):
    cut = np.sqrt(1.0 - lam)
    ch, cw = int(h * cut), int(w * cut)
    cy, cx = np.random.randint(h), np.random.randint(w)
    y1, y2 = np.clip(cy - ch // 2, 0, h), np.clip(cy + ch // 2, 0, h)
    x1, x2 = np.clip(cx - cw // 2, 0, w), np.clip(cx + cw // 2, 0, w)
    return y1, y2, x1, x2


def mix_batch(x, y, cfg):
    targets = one_hot(y, cfg["num_classes"])
    perm = torch.randperm(x.shape[0])
    if random.random() < cfg["p_cutmix"]:
        lam = np.random.beta(cfg["cutmix_alpha"], cfg["cutmix_alpha"])
        y1, y2, x1, x2 = rand_bbox(x.shape[2], x.shape[3], lam)
        x = x.clone()
        x[:, :, y1:y2, x1:x2] = x[perm, :, y1:y2, x1:x2]
        lam = 1 - (y2 - y1) * (x2 - x1) / (x.shape[2] * x.shape[3])
    else:
        lam = np.random.beta(cfg["mixup_alpha"], cfg["mixup_alpha"])
        x = lam * x + (1 - lam) * x[perm]
    return x, lam * targets + (1 - lam) * targets[perm], lam


class SmallResNet(nn.Module):
    def __init__(self, nc):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, padding=1)
        self.block = nn.Sequential(nn.Conv2d(16, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
                                   nn.Conv2d(16, 16, 3, padding=1), nn.BatchNorm2d(16))
        self.fc = nn.Linear(16, nc)

    def forward(self, x):
        h = F.relu(self.stem(x))
        h = F.relu(h + self.block(h))
        return self.fc(F.adaptive_avg_pool2d(h, 1).flatten(1))


def soft_ce(logits, soft_targets):
    return -(soft_targets * F.log_softmax(logits, -1)).sum(-1).mean()


def main():
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    model = SmallResNet(AUG["num_classes"])
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)

    def train_step(x, y):
        x, t, lam = mix_batch(x, y, AUG)
        loss = soft_ce(model(x), t)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss, lam

    train_step = torch.compile(train_step, backend="eager")
    for step in range(5):
        x = torch.rand(8, 3, 16, 16)
        y = torch.randint(0, AUG["num_classes"], (8,))
        loss, lam = train_step(x, y)
        print(f"step {step} lam {float(lam):.3f} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
