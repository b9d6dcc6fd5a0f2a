import random
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
np.random.seed(0)
random.seed(0)

CONFIG = {
    "num_classes": 10,
    "mixup_alpha": 0.4,
    "lr": 1e-2,
    "epochs": 3,
    "batch_size": 16,
    "label_smoothing": 0.1,
}


class SmallConvNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1),
            nn.BatchNorm2d(16),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1),
            nn.BatchNorm2d(32),
            nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d(1),
        )
        self.head = nn.Linear(32, num_classes)

    def forward(self, x):
        x = self.features(x)
        x = torch.flatten(x, 1)
        return self.head(x)


def one_hot_smooth(labels, num_classes, smoothing):
    off = smoothing / num_classes
    y = torch.full((labels.size(0), num_classes), off)
    y.scatter_(1, labels.unsqueeze(1), 1.0 - smoothing + off)
    return y


def mixup(x, y, alpha):
    if alpha <= 0:
        return x, y, 1.0
    lam = np.random.beta(alpha, alpha)
    idx = torch.randperm(x.size(0))
    mixed_x = lam * x + (1 - lam) * x[idx]
    mixed_y = lam * y + (1 - lam) * y[idx]
    return mixed_x, mixed_y, lam


def soft_cross_entropy(logits, target):
    return torch.sum(-target * F.log_softmax(logits, dim=-1), dim=-1).mean()


model = SmallConvNet(CONFIG["num_classes"])
opt = torch.optim.SGD(model.parameters(), lr=CONFIG["lr"], momentum=0.9)


@torch.compile(backend="eager")
def train_step(images, targets):
    logits = model(images)
    loss = soft_cross_entropy(logits, targets)
    loss.backward()
    return loss, logits


def accuracy(logits, labels):
    return (logits.argmax(dim=1) == labels).float().mean().item()


images_all = torch.randn(64, 3, 16, 16)
labels_all = torch.randint(0, CONFIG["num_classes"], (64,))

history = []
for epoch in range(CONFIG["epochs"]):
    model.train()
    perm = torch.randperm(images_all.size(0))
    running = 0.0
    for i in range(0, images_all.size(0), CONFIG["batch_size"]):
        batch_idx = perm[i:i + CONFIG["batch_size"]]
        x = images_all[batch_idx]
        labels = labels_all[batch_idx]
        y = one_hot_smooth(labels, CONFIG["num_classes"], CONFIG["label_smoothing"])
        x, y, lam = mixup(x, y, CONFIG["mixup_alpha"])
        opt.zero_grad()
        loss, logits = train_step(x, y)
        opt.step()
        running += loss.item()
    model.eval()
    with torch.no_grad():
        acc = accuracy(model(images_all), labels_all)
    history.append({"epoch": epoch, "loss": running, "acc": acc})
    print(f"epoch {epoch}: loss={running:.4f} acc={acc:.3f} last_lam={lam:.2f}")

best = max(history, key=lambda h: h["acc"])
print("best epoch", best["epoch"], "acc", round(best["acc"], 3))
