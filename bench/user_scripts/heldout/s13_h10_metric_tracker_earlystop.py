import copy
import json
import math
from collections import defaultdict

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

NUM_CLASSES = 3
IN_DIM = 20
MAX_EPOCHS = 6
PATIENCE = 2
BATCH = 64


class ConfusionMeter:
    def __init__(self, num_classes):
        self.num_classes = num_classes
        self.reset()

    def reset(self):
        self.mat = torch.zeros(self.num_classes, self.num_classes, dtype=torch.long)
        self.loss_sum = 0.0
        self.count = 0
        self.per_batch = defaultdict(list)

    @torch.compile
    def update(self, logits, target, loss=None):
        pred = logits.argmax(dim=-1)
        idx = target * self.num_classes + pred
        self.mat += torch.bincount(idx, minlength=self.num_classes ** 2).view(self.num_classes, self.num_classes)
        if loss is not None:
            self.loss_sum += loss.item() * target.numel()
        self.count += target.numel()
        conf = logits.softmax(-1).max(-1).values
        self.per_batch["confidence"].append(float(conf.mean()))
        if torch.isnan(logits).any():
            print("warning: nan logits in batch")

    def compute(self):
        m = self.mat.double()
        tp = m.diag()
        precision = tp / m.sum(0).clamp(min=1)
        recall = tp / m.sum(1).clamp(min=1)
        f1 = 2 * precision * recall / (precision + recall).clamp(min=1e-12)
        return {
            "acc": (tp.sum() / m.sum().clamp(min=1)).item(),
            "macro_f1": f1.mean().item(),
            "per_class_recall": [round(r, 3) for r in recall.tolist()],
            "loss": self.loss_sum / max(self.count, 1),
            "mean_conf": float(np.mean(self.per_batch["confidence"])) if self.per_batch["confidence"] else math.nan,
        }


class EarlyStopping:
    def __init__(self, patience, mode="max", min_delta=1e-4):
        self.patience, self.mode, self.min_delta = patience, mode, min_delta
        self.best = -math.inf if mode == "max" else math.inf
        self.bad = 0
        self.best_state = None

    def step(self, value, model):
        improved = value > self.best + self.min_delta if self.mode == "max" else value < self.best - self.min_delta
        if improved:
            self.best, self.bad = value, 0
            self.best_state = copy.deepcopy(model.state_dict())
        else:
            self.bad += 1
        return self.bad > self.patience


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(IN_DIM, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, NUM_CLASSES))

    def forward(self, x):
        return self.net(x)


def make_dataset(n, seed):
    g = torch.Generator().manual_seed(seed)
    centers = torch.randn(NUM_CLASSES, IN_DIM, generator=g) * 1.5
    y = torch.randint(0, NUM_CLASSES, (n,), generator=g)
    x = centers[y] + torch.randn(n, IN_DIM, generator=g) * 2.0
    return x, y


def batches(x, y, bs, shuffle=True):
    idx = torch.randperm(len(x)) if shuffle else torch.arange(len(x))
    for i in range(0, len(x), bs):
        j = idx[i:i + bs]
        yield x[j], y[j]


def run_epoch(model, x, y, meter, opt=None):
    meter.reset()
    model.train(opt is not None)
    for xb, yb in batches(x, y, BATCH, shuffle=opt is not None):
        with torch.set_grad_enabled(opt is not None):
            logits = model(xb)
            loss = F.cross_entropy(logits, yb)
        if opt is not None:
            opt.zero_grad()
            loss.backward()
            opt.step()
        meter.update(logits.detach(), yb, loss.detach())
    return meter.compute()


if __name__ == "__main__":
    torch.manual_seed(0)
    x_tr, y_tr = make_dataset(512, seed=1)
    x_va, y_va = make_dataset(192, seed=1)
    model = MLP()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    train_meter, val_meter = ConfusionMeter(NUM_CLASSES), ConfusionMeter(NUM_CLASSES)
    stopper = EarlyStopping(PATIENCE, mode="max")
    log = []
    for epoch in range(MAX_EPOCHS):
        tr = run_epoch(model, x_tr, y_tr, train_meter, opt)
        va = run_epoch(model, x_va, y_va, val_meter)
        log.append({"epoch": epoch, "train": tr, "val": va})
        print(f"epoch {epoch}: train acc {tr['acc']:.3f} loss {tr['loss']:.3f} | val f1 {va['macro_f1']:.3f} recall {va['per_class_recall']}")
        if stopper.step(va["macro_f1"], model):
            print(f"stopping early at epoch {epoch}, best f1 {stopper.best:.3f}")
            break
    model.load_state_dict(stopper.best_state)
    print(json.dumps(log[-1]["val"], indent=None))
