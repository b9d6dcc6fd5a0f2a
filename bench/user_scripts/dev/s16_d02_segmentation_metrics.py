import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(2)

NUM_CLASSES = 4
IGNORE_INDEX = 255
CLASS_NAMES = ["background", "road", "car", "person"]


class TinyUNet(nn.Module):
    def __init__(self, in_ch=3, num_classes=NUM_CLASSES, width=16):
        super().__init__()
        self.enc1 = self._block(in_ch, width)
        self.enc2 = self._block(width, width * 2)
        self.up = nn.ConvTranspose2d(width * 2, width, 2, stride=2)
        self.dec = self._block(width * 2, width)
        self.out = nn.Conv2d(width, num_classes, 1)

    @staticmethod
    def _block(i, o):
        return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.GroupNorm(4, o), nn.GELU())

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(F.max_pool2d(e1, 2))
        d = self.up(e2)
        d = self.dec(torch.cat([d, e1], dim=1))
        return self.out(d)


def dice_loss(logits, target, eps=1.0):
    valid = (target != IGNORE_INDEX)
    t = target.clone()
    t[~valid] = 0
    probs = logits.softmax(dim=1)
    onehot = F.one_hot(t, NUM_CLASSES).permute(0, 3, 1, 2).float()
    mask = valid.unsqueeze(1).float()
    inter = (probs * onehot * mask).sum(dim=(0, 2, 3))
    denom = ((probs + onehot) * mask).sum(dim=(0, 2, 3))
    return 1 - ((2 * inter + eps) / (denom + eps)).mean()


class ConfusionMatrix:
    def __init__(self, num_classes):
        self.num_classes = num_classes
        self.mat = torch.zeros(num_classes, num_classes, dtype=torch.long)

    def update(self, pred, target):
        k = target != IGNORE_INDEX
        inds = self.num_classes * target[k] + pred[k]
        self.mat += torch.bincount(inds, minlength=self.num_classes ** 2).reshape(self.num_classes, -1)

    @property
    def iou(self):
        h = self.mat.float()
        return torch.diag(h) / (h.sum(0) + h.sum(1) - torch.diag(h)).clamp(min=1)

    @property
    def pixel_acc(self):
        return (torch.diag(self.mat).sum() / self.mat.sum().clamp(min=1)).item()


model = TinyUNet()
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
compiled_model = torch.compile(model, backend="eager")


def make_batch(n=4, size=32):
    x = torch.randn(n, 3, size, size)
    y = (x[:, 0] > 0).long() + (x[:, 1] > 0.5).long() + (x[:, 2] > 1.0).long()
    y[:, :2, :] = IGNORE_INDEX  # border is unlabeled
    return x, y


for it in range(6):
    x, y = make_batch()
    logits = compiled_model(x)
    ce = F.cross_entropy(logits, y, ignore_index=IGNORE_INDEX)
    loss = ce + 0.5 * dice_loss(logits, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if it % 2 == 0:
        print(f"iter {it} ce={ce.item():.4f} total={loss.item():.4f}")

cm = ConfusionMatrix(NUM_CLASSES)
model.eval()
with torch.no_grad():
    for _ in range(3):
        x, y = make_batch()
        pred = compiled_model(x).argmax(dim=1)
        cm.update(pred, y)

for name, v in zip(CLASS_NAMES, cm.iou.tolist()):
    print(f"  IoU[{name:>10}] = {v:.3f}")
print(f"mIoU={cm.iou.mean().item():.3f} pixel_acc={cm.pixel_acc:.3f}")
