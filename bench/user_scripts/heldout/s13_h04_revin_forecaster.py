import math

import numpy as np
import torch
import torch.nn as nn

config = dict(
    n_series=3,
    lookback=48,
    horizon=12,
    hidden=64,
    batch=16,
    epochs=4,
    lr=2e-3,
    patience=2,
)


class RevIN(nn.Module):
    def __init__(self, num_features, eps=1e-5, affine=True):
        super().__init__()
        self.eps = eps
        self.affine = affine
        if affine:
            self.weight = nn.Parameter(torch.ones(num_features))
            self.bias = nn.Parameter(torch.zeros(num_features))
        self.stats = {}

    def forward(self, x, mode):
        if mode == "norm":
            self.stats["mean"] = x.mean(dim=1, keepdim=True).detach()
            self.stats["std"] = torch.sqrt(x.var(dim=1, keepdim=True, unbiased=False) + self.eps).detach()
            x = (x - self.stats["mean"]) / self.stats["std"]
            if self.affine:
                x = x * self.weight + self.bias
            return x
        elif mode == "denorm":
            if self.affine:
                x = (x - self.bias) / (self.weight + self.eps * self.eps)
            return x * self.stats["std"] + self.stats["mean"]
        raise ValueError(mode)


class Forecaster(nn.Module):
    def __init__(self, n_series, lookback, horizon, hidden):
        super().__init__()
        self.revin = RevIN(n_series)
        self.horizon = horizon
        self.trend = nn.Linear(lookback, horizon)
        self.mlp = nn.Sequential(nn.Linear(lookback, hidden), nn.GELU(), nn.Linear(hidden, horizon))

    def forward(self, x):
        x = self.revin(x, "norm")
        z = x.transpose(1, 2)
        out = self.trend(z) + self.mlp(z)
        out = out.transpose(1, 2)
        return self.revin(out, "denorm")


def synth_series(length, n_series, seed=0):
    rng = np.random.default_rng(seed)
    t = np.arange(length)
    cols = []
    for i in range(n_series):
        period = 24 * (i + 1)
        level = rng.uniform(5, 50)
        slope = rng.uniform(-0.02, 0.05)
        s = level + slope * t + 3 * np.sin(2 * math.pi * t / period) + rng.normal(0, 0.5, length)
        cols.append(s)
    return np.stack(cols, axis=1).astype(np.float32)


def make_windows(series, lookback, horizon):
    xs, ys = [], []
    for start in range(0, len(series) - lookback - horizon, 4):
        xs.append(series[start:start + lookback])
        ys.append(series[start + lookback:start + lookback + horizon])
    return torch.tensor(np.array(xs)), torch.tensor(np.array(ys))


def train_step(model, opt, xb, yb):
    pred = model(xb)
    loss = nn.functional.l1_loss(pred, yb)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    return loss


def evaluate(model, x, y):
    with torch.no_grad():
        pred = model(x)
        mae = (pred - y).abs().mean().item()
        mape = ((pred - y).abs() / y.abs().clamp(min=1e-3)).mean().item() * 100
    return {"mae": mae, "mape": mape}


if __name__ == "__main__":
    torch.manual_seed(0)
    series = synth_series(600, config["n_series"])
    split = int(len(series) * 0.8)
    x_tr, y_tr = make_windows(series[:split], config["lookback"], config["horizon"])
    x_va, y_va = make_windows(series[split - config["lookback"]:], config["lookback"], config["horizon"])
    print("train windows", tuple(x_tr.shape), "val windows", tuple(x_va.shape))

    model = Forecaster(config["n_series"], config["lookback"], config["horizon"], config["hidden"])
    opt = torch.optim.Adam(model.parameters(), lr=config["lr"])
    step_fn = torch.compile(train_step)

    best, bad_epochs = float("inf"), 0
    for epoch in range(config["epochs"]):
        perm = torch.randperm(len(x_tr))
        running = 0.0
        n = 0
        for i in range(0, len(perm) - config["batch"] + 1, config["batch"]):
            idx = perm[i:i + config["batch"]]
            loss = step_fn(model, opt, x_tr[idx], y_tr[idx])
            running += loss.item()
            n += 1
        metrics = evaluate(model, x_va, y_va)
        print(f"epoch {epoch}: train_l1={running / max(n, 1):.3f} val_mae={metrics['mae']:.3f} val_mape={metrics['mape']:.2f}%")
        if metrics["mae"] < best - 1e-3:
            best, bad_epochs = metrics["mae"], 0
        else:
            bad_epochs += 1
            if bad_epochs >= config["patience"]:
                print("early stopping")
                break
    print("best val mae", round(best, 4))
