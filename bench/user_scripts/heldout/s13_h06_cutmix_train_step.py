import random
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

HPARAMS = {
    "num_classes": 10,
    "batch_size": 16,
    "image_size": 28,
    "mix_prob": 0.8,
    "alpha": 1.0,
    "lr": 0.002,
    "iters": 8,
}


class SmallCNN(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.classifier = nn.Linear(32 * 7 * 7, num_classes)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


def rand_bbox(size, lam):
    H, W = size[2], size[3]
    cut_rat = np.sqrt(1.0 - lam)
    cut_w, cut_h = int(W * cut_rat), int(H * cut_rat)
    cx, cy = np.random.randint(W), np.random.randint(H)
    x1, x2 = np.clip(cx - cut_w // 2, 0, W), np.clip(cx + cut_w // 2, 0, W)
    y1, y2 = np.clip(cy - cut_h // 2, 0, H), np.clip(cy + cut_h // 2, 0, H)
    return int(x1), int(y1), int(x2), int(y2)


def mix_batch(images, targets, num_classes):
    onehot = F.one_hot(targets, num_classes).float()
    if random.random() > HPARAMS["mix_prob"]:
        return images, onehot, "none"
    lam = np.random.beta(HPARAMS["alpha"], HPARAMS["alpha"])
    perm = torch.randperm(images.size(0))
    if random.random() < 0.5:
        mixed = lam * images + (1 - lam) * images[perm]
        kind = "mixup"
    else:
        x1, y1, x2, y2 = rand_bbox(images.size(), lam)
        mixed = images.clone()
        mixed[:, :, y1:y2, x1:x2] = images[perm, :, y1:y2, x1:x2]
        lam = 1 - ((x2 - x1) * (y2 - y1) / (images.size(-1) * images.size(-2)))
        kind = "cutmix"
    soft = lam * onehot + (1 - lam) * onehot[perm]
    return mixed, soft, kind


model = SmallCNN(HPARAMS["num_classes"])
optimizer = torch.optim.SGD(model.parameters(), lr=HPARAMS["lr"], momentum=0.9, nesterov=True)
stats = {"none": 0, "mixup": 0, "cutmix": 0}


@torch.compile
def train_step(images, targets):
    model.train()
    mixed, soft_targets, kind = mix_batch(images, targets, HPARAMS["num_classes"])
    stats[kind] += 1
    logits = model(mixed)
    loss = torch.sum(-soft_targets * F.log_softmax(logits, dim=-1), dim=-1).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.detach(), logits.detach()


def fake_loader(n_batches):
    for _ in range(n_batches):
        x = torch.rand(HPARAMS["batch_size"], 1, HPARAMS["image_size"], HPARAMS["image_size"])
        y = torch.randint(0, HPARAMS["num_classes"], (HPARAMS["batch_size"],))
        yield (x - 0.5) / 0.25, y


if __name__ == "__main__":
    random.seed(42)
    np.random.seed(42)
    torch.manual_seed(42)
    start = time.perf_counter()
    for it, (x, y) in enumerate(fake_loader(HPARAMS["iters"])):
        loss, logits = train_step(x, y)
        acc = (logits.argmax(-1) == y).float().mean()
        print("iter {:>2d} | loss {:.4f} | acc {:.2%}".format(it, loss.item(), acc.item()))
    print("mix stats:", stats)
    print(f"total time {time.perf_counter() - start:.1f}s")
