import time
import logging

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
log = logging.getLogger("seg")

CFG = {
    "num_classes": 4,
    "img_size": 32,
    "batch_size": 4,
    "lr": 1e-3,
    "steps": 6,
    "dice_weight": 0.5,
    "ignore_index": 255,
}


class TinySegNet(nn.Module):
    def __init__(self, in_ch=3, num_classes=4, width=16):
        super().__init__()
        self.enc1 = nn.Sequential(nn.Conv2d(in_ch, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU())
        self.enc2 = nn.Sequential(nn.Conv2d(width, width * 2, 3, stride=2, padding=1), nn.BatchNorm2d(width * 2), nn.ReLU())
        self.dec = nn.Sequential(nn.Conv2d(width * 3, width, 3, padding=1), nn.ReLU())
        self.head = nn.Conv2d(width, num_classes, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(e1)
        up = F.interpolate(e2, size=e1.shape[-2:], mode="bilinear", align_corners=False)
        d = self.dec(torch.cat([e1, up], dim=1))
        return self.head(d)


def compute_class_weights(mask, num_classes, ignore_index):
    valid = mask[mask != ignore_index]
    counts = torch.bincount(valid.flatten(), minlength=num_classes).float()
    freq = counts / counts.sum().clamp(min=1)
    weights = 1.0 / torch.log(1.02 + freq)
    if (counts == 0).any():
        weights[counts == 0] = 0.0
    return weights / weights.sum() * num_classes


def soft_dice(logits, target, num_classes, ignore_index, eps=1e-6):
    probs = logits.softmax(dim=1)
    valid = (target != ignore_index).unsqueeze(1).float()
    safe_target = target.clone()
    safe_target[target == ignore_index] = 0
    onehot = F.one_hot(safe_target, num_classes).permute(0, 3, 1, 2).float()
    probs = probs * valid
    onehot = onehot * valid
    inter = (probs * onehot).sum(dim=(0, 2, 3))
    denom = probs.sum(dim=(0, 2, 3)) + onehot.sum(dim=(0, 2, 3))
    dice = (2 * inter + eps) / (denom + eps)
    present = onehot.sum(dim=(0, 2, 3)) > 0
    return 1.0 - dice[present].mean()


@torch.compile
def seg_loss(logits, target):
    weights = compute_class_weights(target, CFG["num_classes"], CFG["ignore_index"])
    ce = F.cross_entropy(logits, target, weight=weights, ignore_index=CFG["ignore_index"])
    dl = soft_dice(logits, target, CFG["num_classes"], CFG["ignore_index"])
    total = ce + CFG["dice_weight"] * dl
    return total, {"ce": ce.detach(), "dice": dl.detach()}


def make_batch(bs, size, num_classes, ignore_index):
    x = torch.randn(bs, 3, size, size)
    y = torch.randint(0, num_classes, (bs, size, size))
    # emulate boundary pixels that are ignored
    border = torch.zeros(size, size, dtype=torch.bool)
    border[:2, :] = True
    border[:, :2] = True
    y[:, border] = ignore_index
    return x, y


def pixel_accuracy(logits, target, ignore_index):
    pred = logits.argmax(1)
    valid = target != ignore_index
    return (pred[valid] == target[valid]).float().mean().item()


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    model = TinySegNet(num_classes=CFG["num_classes"])
    opt = torch.optim.AdamW(model.parameters(), lr=CFG["lr"])
    history = []
    for step in range(CFG["steps"]):
        t0 = time.time()
        x, y = make_batch(CFG["batch_size"], CFG["img_size"], CFG["num_classes"], CFG["ignore_index"])
        logits = model(x)
        loss, parts = seg_loss(logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        acc = pixel_accuracy(logits.detach(), y, CFG["ignore_index"])
        history.append(loss.item())
        log.info(
            "step %d loss=%.4f ce=%.4f dice=%.4f acc=%.3f (%.2fs)",
            step, loss.item(), parts["ce"].item(), parts["dice"].item(), acc, time.time() - t0,
        )
    print("mean loss:", float(np.mean(history)))


if __name__ == "__main__":
    main()
