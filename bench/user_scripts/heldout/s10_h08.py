"""Regression training with warmup-cosine LR, gradient clipping, EMA weights and early stopping."""
import copy
import math

import torch
import torch.nn as nn

torch.manual_seed(8)

CONFIG = {
    "epochs": 12,
    "lr": 5e-3,
    "warmup": 3,
    "clip": 0.5,
    "ema_decay": 0.9,
    "patience": 3,
    "min_delta": 1e-4,
    "log_every": 2,
}


class WarmupCosine:
    def __init__(self, optimizer, base_lr, warmup, total):
        self.opt = optimizer
        self.base_lr = base_lr
        self.warmup = warmup
        self.total = total
        self.step_num = 0

    def get_lr(self):
        if self.step_num < self.warmup:
            return self.base_lr * (self.step_num + 1) / self.warmup
        progress = (self.step_num - self.warmup) / max(1, self.total - self.warmup)
        return 0.5 * self.base_lr * (1.0 + math.cos(math.pi * progress))

    def step(self):
        lr = self.get_lr()
        for g in self.opt.param_groups:
            g["lr"] = lr
        self.step_num += 1
        return lr


class EMA:
    def __init__(self, model, decay):
        self.decay = decay
        self.shadow = copy.deepcopy(model).eval()
        for p in self.shadow.parameters():
            p.requires_grad_(False)

    @torch.no_grad()
    def update(self, model):
        for s, p in zip(self.shadow.parameters(), model.parameters()):
            s.mul_(self.decay).add_(p.detach(), alpha=1.0 - self.decay)


class EarlyStopper:
    def __init__(self, patience, min_delta):
        self.patience = patience
        self.min_delta = min_delta
        self.best = float("inf")
        self.bad_epochs = 0

    def should_stop(self, metric):
        if metric < self.best - self.min_delta:
            self.best = metric
            self.bad_epochs = 0
        else:
            self.bad_epochs += 1
        return self.bad_epochs >= self.patience


class MLP(nn.Module):
    def __init__(self, dims):
        super().__init__()
        layers = []
        for i in range(len(dims) - 1):
            layers.append(nn.Linear(dims[i], dims[i + 1]))
            if i < len(dims) - 2:
                layers.append(nn.Tanh())
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


def grad_norm(params):
    norms = [p.grad.detach().norm(2) for p in params if p.grad is not None]
    return torch.stack(norms).norm(2)


@torch.compile(backend="eager")
def train_step(model, opt, x, y, clip):
    pred = model(x)
    loss = nn.functional.smooth_l1_loss(pred, y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    total = grad_norm(model.parameters())
    if total > clip:
        for p in model.parameters():
            p.grad.mul_(clip / (total + 1e-6))
    opt.step()
    return loss.detach(), total


@torch.compile(backend="eager")
def validate(model, x, y):
    pred = model(x)
    return ((pred - y) ** 2).mean()


if __name__ == "__main__":
    w_true = torch.randn(6, 1)
    x_tr = torch.randn(64, 6)
    y_tr = x_tr @ w_true + 0.1 * torch.randn(64, 1)
    x_va = torch.randn(32, 6)
    y_va = x_va @ w_true

    model = MLP([6, 16, 16, 1])
    opt = torch.optim.AdamW(model.parameters(), lr=CONFIG["lr"])
    sched = WarmupCosine(opt, CONFIG["lr"], CONFIG["warmup"], CONFIG["epochs"])
    ema = EMA(model, CONFIG["ema_decay"])
    stopper = EarlyStopper(CONFIG["patience"], CONFIG["min_delta"])

    for epoch in range(CONFIG["epochs"]):
        lr = sched.step()
        for i in range(0, 64, 16):
            loss, gn = train_step(model, opt, x_tr[i:i + 16], y_tr[i:i + 16], CONFIG["clip"])
            ema.update(model)
        val = validate(ema.shadow, x_va, y_va).item()
        if epoch % CONFIG["log_every"] == 0:
            print(f"epoch {epoch}: lr={lr:.5f} loss={loss.item():.4f} grad_norm={gn.item():.3f} val={val:.4f}")
        if stopper.should_stop(val):
            print(f"early stopping at epoch {epoch}, best val={stopper.best:.4f}")
            break
