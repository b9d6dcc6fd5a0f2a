import math
import tempfile
import os

import torch
import torch.nn as nn
import torch.nn.functional as F


class WarmupCosine:
    def __init__(self, optimizer, warmup_steps, total_steps, base_lr, min_lr=1e-5):
        self.optimizer = optimizer
        self.warmup_steps = warmup_steps
        self.total_steps = total_steps
        self.base_lr = base_lr
        self.min_lr = min_lr
        self.current_step = 0

    def get_lr(self):
        s = self.current_step
        if s < self.warmup_steps:
            return self.base_lr * (s + 1) / self.warmup_steps
        progress = (s - self.warmup_steps) / max(1, self.total_steps - self.warmup_steps)
        progress = min(progress, 1.0)
        return self.min_lr + 0.5 * (self.base_lr - self.min_lr) * (1 + math.cos(math.pi * progress))

    def step(self):
        lr = self.get_lr()
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        self.current_step += 1
        return lr


class EarlyStopping:
    def __init__(self, patience=3, min_delta=1e-4, ckpt_dir=None):
        self.patience = patience
        self.min_delta = min_delta
        self.best = float("inf")
        self.bad_steps = 0
        self.should_stop = False
        self.ckpt_path = os.path.join(ckpt_dir, "best.pt") if ckpt_dir else None

    def update(self, value, model=None):
        if value < self.best - self.min_delta:
            self.best = value
            self.bad_steps = 0
            if model is not None and self.ckpt_path:
                torch.save(model.state_dict(), self.ckpt_path)
        else:
            self.bad_steps += 1
            if self.bad_steps >= self.patience:
                self.should_stop = True
        return self.should_stop


class MLP(nn.Module):
    def __init__(self, d_in=20, d_hidden=64, d_out=1):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d_in, d_hidden), nn.SiLU(),
            nn.Linear(d_hidden, d_hidden), nn.SiLU(),
            nn.Linear(d_hidden, d_out),
        )

    def forward(self, x):
        return self.net(x).squeeze(-1)


class Trainer:
    def __init__(self, model, lr=1e-2, total_steps=30, clip=1.0, ckpt_dir=None):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
        self.sched = WarmupCosine(self.opt, warmup_steps=3, total_steps=total_steps, base_lr=lr)
        self.stopper = EarlyStopping(patience=3, ckpt_dir=ckpt_dir)
        self.clip = clip
        self.log = []

    @torch.compile(backend="eager")
    def train_step(self, x, y):
        if self.stopper.should_stop:
            return None
        lr = self.sched.step()
        pred = self.model(x)
        loss = F.smooth_l1_loss(pred, y)
        self.opt.zero_grad()
        loss.backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
        if torch.isfinite(grad_norm):
            self.opt.step()
        else:
            print("skipping step, non-finite grad norm")
        loss_val = loss.item()
        self.log.append({"lr": lr, "loss": loss_val, "grad_norm": float(grad_norm)})
        if self.stopper.update(loss_val, self.model):
            print(f"early stopping at step {self.sched.current_step}, best={self.stopper.best:.4f}")
        return loss.detach()


def main():
    torch.manual_seed(0)
    w_true = torch.randn(20)
    with tempfile.TemporaryDirectory() as tmp:
        trainer = Trainer(MLP(), ckpt_dir=tmp)
        for step in range(3):
            x = torch.randn(32, 20)
            y = x @ w_true + 0.1 * torch.randn(32)
            loss = trainer.train_step(x, y)
            if loss is None:
                break
            rec = trainer.log[-1]
            print(f"step {step}: lr={rec['lr']:.5f} loss={rec['loss']:.4f} "
                  f"grad_norm={rec['grad_norm']:.3f}")
        print("checkpoint saved:", os.path.exists(os.path.join(tmp, "best.pt")))


if __name__ == "__main__":
    main()
