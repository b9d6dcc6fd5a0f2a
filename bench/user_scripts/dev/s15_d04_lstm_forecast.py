import numpy as np
import torch
import torch.nn as nn


config = dict(window=24, horizon=6, hidden=32, batch=8, epochs=3, lr=5e-3)


def make_series(n=400, seed=0):
    rng = np.random.default_rng(seed)
    t = np.arange(n)
    s = np.sin(2 * np.pi * t / 24) + 0.5 * np.sin(2 * np.pi * t / 7) + 0.01 * t
    return (s + 0.1 * rng.standard_normal(n)).astype(np.float32)


def windows(series, window, horizon):
    xs, ys = [], []
    for i in range(len(series) - window - horizon):
        xs.append(series[i : i + window])
        ys.append(series[i + window : i + window + horizon])
    return np.stack(xs), np.stack(ys)


class Scaler:
    def fit(self, x):
        self.mu = x.mean()
        self.sd = x.std()
        return self

    def transform(self, x):
        return (x - self.mu) / self.sd

    def inverse(self, x):
        return x * self.sd + self.mu


class Forecaster(nn.Module):
    def __init__(self, hidden, horizon):
        super().__init__()
        self.lstm = nn.LSTM(1, hidden, batch_first=True, num_layers=1)
        self.head = nn.Linear(hidden, horizon)

    def forward(self, x):
        out, (h, c) = self.lstm(x.unsqueeze(-1))
        return self.head(out[:, -1])


def train_one_epoch(model, X, Y, opt, batch):
    perm = torch.randperm(len(X))
    total = 0.0
    n = 0
    for i in range(0, len(X) - batch + 1, batch * 8):
        idx = perm[i : i + batch]
        pred = model(X[idx])
        loss = nn.functional.smooth_l1_loss(pred, Y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
        n += 1
    return total / max(n, 1)


def evaluate(model, X, Y, scaler):
    with torch.no_grad():
        pred = model(X)
    pred_np = scaler.inverse(pred.numpy())
    true_np = scaler.inverse(Y.numpy())
    mae = np.abs(pred_np - true_np).mean()
    mape = (np.abs(pred_np - true_np) / (np.abs(true_np) + 1e-3)).mean() * 100
    return mae, mape


series = make_series()
split = int(0.8 * len(series))
scaler = Scaler().fit(series[:split])
Xtr, Ytr = windows(scaler.transform(series[:split]), config["window"], config["horizon"])
Xte, Yte = windows(scaler.transform(series[split:]), config["window"], config["horizon"])
Xtr, Ytr, Xte, Yte = map(torch.from_numpy, (Xtr, Ytr, Xte, Yte))

torch.manual_seed(0)
model = Forecaster(config["hidden"], config["horizon"])
model = torch.compile(model, backend="eager")
opt = torch.optim.Adam(model.parameters(), lr=config["lr"])
for epoch in range(config["epochs"]):
    tr_loss = train_one_epoch(model, Xtr, Ytr, opt, config["batch"])
    mae, mape = evaluate(model, Xte[:16], Yte[:16], scaler)
    print(f"epoch {epoch} train {tr_loss:.4f} test_mae {mae:.3f} mape {mape:.1f}%")
