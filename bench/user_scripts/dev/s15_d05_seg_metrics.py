import torch
import torch.nn as nn
import torch.nn.functional as F


class SegNet(nn.Module):
    def __init__(self, n_classes=4):
        super().__init__()
        self.enc1 = nn.Conv2d(3, 16, 3, padding=1)
        self.enc2 = nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.dec = nn.ConvTranspose2d(32, 16, 2, stride=2)
        self.cls = nn.Conv2d(32, n_classes, 1)

    def forward(self, x):
        e1 = F.relu(self.enc1(x))
        e2 = F.relu(self.enc2(e1))
        d = F.relu(self.dec(e2))
        return self.cls(torch.cat([d, e1], 1))


class ConfusionMeter:
    def __init__(self, n_classes, ignore_index=255):
        self.n = n_classes
        self.ignore = ignore_index
        self.mat = torch.zeros(n_classes, n_classes, dtype=torch.long)

    def update(self, pred, target):
        valid = target != self.ignore
        p = pred[valid]
        t = target[valid]
        idx = t * self.n + p
        self.mat += torch.bincount(idx, minlength=self.n ** 2).view(self.n, self.n)

    def summary(self):
        tp = self.mat.diag().float()
        iou = tp / (self.mat.sum(0) + self.mat.sum(1) - self.mat.diag()).float().clamp(min=1)
        acc = tp.sum() / self.mat.sum().clamp(min=1)
        return {"miou": iou.mean().item(), "acc": acc.item(), "per_class": [round(v, 3) for v in iou.tolist()]}


@torch.compile(backend="eager")
def eval_batch(model, images, masks, meter):
    logits = model(images)
    pred = logits.argmax(1)
    meter.update(pred, masks)
    loss = F.cross_entropy(logits, masks, ignore_index=255)
    return loss


def fake_batch(b=4, h=16, w=16, n_classes=4):
    images = torch.rand(b, 3, h, w)
    masks = (images[:, 0] * n_classes).long().clamp(max=n_classes - 1)
    masks[:, :2, :] = 255
    return images, masks


def main():
    torch.manual_seed(0)
    model = SegNet()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for step in range(5):
        x, y = fake_batch()
        loss = F.cross_entropy(model(x), y, ignore_index=255)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    meter = ConfusionMeter(4)
    losses = []
    with torch.no_grad():
        for _ in range(3):
            x, y = fake_batch()
            losses.append(eval_batch(model, x, y, meter).item())
    stats = meter.summary()
    print(f"val loss {sum(losses) / len(losses):.4f}")
    for k, v in stats.items():
        print(k, v)


if __name__ == "__main__":
    main()
