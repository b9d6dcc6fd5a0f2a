import numpy as np
import torch
import torch.nn as nn


SETTINGS = {"n_channels": 3, "seq": 32, "latent": 8, "epochs": 4, "batch": 8, "quantile": 0.95}


def synth_sensor_data(n, seq, ch, anomaly_rate=0.1, seed=0):
    rng = np.random.default_rng(seed)
    t = np.linspace(0, 4 * np.pi, seq)
    base = np.stack([np.sin(t + k) for k in range(ch)], 0)
    X = base[None] + 0.05 * rng.standard_normal((n, ch, seq))
    labels = rng.random(n) < anomaly_rate
    for i in np.where(labels)[0]:
        pos = rng.integers(0, seq - 4)
        X[i, rng.integers(0, ch), pos : pos + 4] += rng.choice([-2.0, 2.0])
    return torch.tensor(X, dtype=torch.float32), labels


class ConvAE(nn.Module):
    def __init__(self, ch, latent):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv1d(ch, 16, 5, stride=2, padding=2), nn.ReLU(),
            nn.Conv1d(16, latent, 5, stride=2, padding=2),
        )
        self.decoder = nn.Sequential(
            nn.ConvTranspose1d(latent, 16, 4, stride=2, padding=1), nn.ReLU(),
            nn.ConvTranspose1d(16, ch, 4, stride=2, padding=1),
        )

    def forward(self, x):
        return self.decoder(self.encoder(x))


def score(model, x):
    recon = model(x)
    err = (recon - x).pow(2).mean(dim=1)
    return err.max(dim=-1).values


def precision_recall(pred, truth):
    tp = np.sum(pred & truth)
    fp = np.sum(pred & ~truth)
    fn = np.sum(~pred & truth)
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f1


def main():
    s = SETTINGS
    torch.manual_seed(0)
    X_train, y_train = synth_sensor_data(96, s["seq"], s["n_channels"], anomaly_rate=0.0)
    X_test, y_test = synth_sensor_data(48, s["seq"], s["n_channels"], anomaly_rate=0.2, seed=1)
    model = ConvAE(s["n_channels"], s["latent"])
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    scorer = torch.compile(score, backend="eager")

    for epoch in range(s["epochs"]):
        losses = []
        for i in range(0, len(X_train), s["batch"] * 3):
            xb = X_train[i : i + s["batch"]]
            loss = nn.functional.mse_loss(model(xb), xb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        print(f"epoch {epoch} recon {np.mean(losses):.4f}")

    model.eval()
    with torch.no_grad():
        train_scores = scorer(model, X_train).numpy()
        test_scores = scorer(model, X_test).numpy()
    thresh = np.quantile(train_scores, s["quantile"])
    pred = test_scores > thresh
    p, r, f1 = precision_recall(pred, y_test)
    print(f"threshold {thresh:.4f} flagged {pred.sum()}/{len(pred)} true {y_test.sum()}")
    print(f"precision {p:.2f} recall {r:.2f} f1 {f1:.2f}")


if __name__ == "__main__":
    main()
