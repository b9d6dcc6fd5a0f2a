import copy
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(6)
np.random.seed(6)

LOOKBACK = 24
HORIZON = 6


def make_series(n=400):
    t = np.arange(n)
    series = np.sin(2 * np.pi * t / 24) + 0.5 * np.sin(2 * np.pi * t / 7) + 0.01 * t
    series += 0.1 * np.random.randn(n)
    return series.astype(np.float32)


def windowize(series, lookback, horizon):
    xs, ys = [], []
    for i in range(len(series) - lookback - horizon):
        xs.append(series[i:i + lookback])
        ys.append(series[i + lookback:i + lookback + horizon])
    return torch.from_numpy(np.stack(xs)).unsqueeze(-1), torch.from_numpy(np.stack(ys))


class Scaler:
    def fit(self, x):
        self.mean = x.mean()
        self.std = x.std() + 1e-8
        return self

    def transform(self, x):
        return (x - self.mean) / self.std

    def inverse(self, x):
        return x * self.std + self.mean


class Forecaster(nn.Module):
    def __init__(self, hidden=32, horizon=HORIZON):
        super().__init__()
        self.lstm = nn.LSTM(1, hidden, num_layers=2, batch_first=True)
        self.proj = nn.Linear(hidden, horizon)

    def forward(self, x):
        out, (h, c) = self.lstm(x)
        last = out[:, -1]
        # predict residual relative to last observed value
        return x[:, -1, :] + self.proj(last)


class EarlyStopping:
    def __init__(self, patience=2, min_delta=1e-4):
        self.patience = patience
        self.min_delta = min_delta
        self.best = float("inf")
        self.bad_epochs = 0
        self.best_state = None

    def step(self, val_loss, model):
        if val_loss < self.best - self.min_delta:
            self.best = val_loss
            self.bad_epochs = 0
            self.best_state = copy.deepcopy(model.state_dict())
            return False
        self.bad_epochs += 1
        return self.bad_epochs >= self.patience


series = make_series()
split = int(len(series) * 0.8)
scaler = Scaler().fit(series[:split])
train_x, train_y = windowize(scaler.transform(series[:split]), LOOKBACK, HORIZON)
val_x, val_y = windowize(scaler.transform(series[split:]), LOOKBACK, HORIZON)

model = Forecaster()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
loss_fn = nn.SmoothL1Loss()
stopper = EarlyStopping()


@torch.compile(backend="eager")
def train_step(xb, yb):
    opt.zero_grad()
    loss = loss_fn(model(xb), yb)
    loss.backward()
    return loss


for epoch in range(6):
    model.train()
    perm = torch.randperm(len(train_x))
    losses = []
    for i in range(0, len(perm), 64):
        idx = perm[i:i + 64]
        loss = train_step(train_x[idx], train_y[idx])
        opt.step()
        losses.append(loss.item())
    sched.step()
    model.eval()
    with torch.no_grad():
        val_loss = loss_fn(model(val_x), val_y).item()
    print(f"epoch {epoch} lr={sched.get_last_lr()[0]:.4f} train={np.mean(losses):.4f} val={val_loss:.4f}")
    if stopper.step(val_loss, model):
        print("early stopping")
        break

model.load_state_dict(stopper.best_state)
with torch.no_grad():
    pred = scaler.inverse(model(val_x[-1:]).numpy()[0])
true = scaler.inverse(val_y[-1].numpy())
print("forecast:", np.round(pred, 2).tolist())
print("actual:  ", np.round(true, 2).tolist())
print(f"MAPE: {np.mean(np.abs((pred - true) / true)) * 100:.1f}%")
