import random
import time
import warnings
from functools import partial

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

SAMPLE_RATE = 8000
N_FFT = 256
HOP = 64
N_MELS = 32

cfg = {
    "freq_mask": 6,
    "time_mask": 10,
    "num_freq_masks": 2,
    "num_time_masks": 2,
    "mix_prob": 0.5,
    "lr": 1e-3,
    "epochs": 3,
    "batch": 8,
}


def hz_to_mel(f):
    return 2595.0 * np.log10(1.0 + f / 700.0)


def mel_to_hz(m):
    return 700.0 * (10 ** (m / 2595.0) - 1.0)


def mel_filterbank(n_fft, n_mels, sr):
    n_freqs = n_fft // 2 + 1
    mels = np.linspace(hz_to_mel(0), hz_to_mel(sr / 2), n_mels + 2)
    hz = mel_to_hz(mels)
    bins = np.floor((n_fft + 1) * hz / sr).astype(int)
    fb = np.zeros((n_mels, n_freqs), dtype=np.float32)
    for m in range(1, n_mels + 1):
        l, c, r = bins[m - 1], bins[m], bins[m + 1]
        for k in range(l, c):
            fb[m - 1, k] = (k - l) / max(c - l, 1)
        for k in range(c, r):
            fb[m - 1, k] = (r - k) / max(r - c, 1)
    return torch.from_numpy(fb)


MEL_FB = mel_filterbank(N_FFT, N_MELS, SAMPLE_RATE)
WINDOW = torch.hann_window(N_FFT)


def log_mel(wave):
    spec = torch.stft(wave, N_FFT, hop_length=HOP, window=WINDOW, return_complex=True)
    power = spec.abs() ** 2
    mel = torch.matmul(MEL_FB, power)
    return torch.log(mel + 1e-6)


def mask_along(spec, width, axis):
    size = spec.shape[axis]
    w = random.randint(0, width)
    if w == 0 or w >= size:
        return spec
    start = random.randint(0, size - w)
    idx = torch.arange(size)
    m = (idx >= start) & (idx < start + w)
    shape = [1] * spec.dim()
    shape[axis] = size
    return spec.masked_fill(m.view(shape), spec.mean().item())


@torch.compile(dynamic=True)
def spec_augment(spec, conf):
    for _ in range(conf["num_freq_masks"]):
        spec = mask_along(spec, conf["freq_mask"], -2)
    for _ in range(conf["num_time_masks"]):
        spec = mask_along(spec, conf["time_mask"], -1)
    if random.random() < conf["mix_prob"]:
        perm = torch.randperm(spec.shape[0])
        lam = np.random.beta(0.4, 0.4)
        spec = lam * spec + (1 - lam) * spec[perm]
        return spec, perm, float(lam)
    return spec, None, 1.0


class KeywordNet(nn.Module):
    def __init__(self, n_classes=4):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
            nn.MaxPool2d(2), nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
        )
        self.fc = nn.Linear(16, n_classes)

    def forward(self, x):
        return self.fc(self.conv(x.unsqueeze(1)).flatten(1))


def synth_batch(n, seconds=0.5):
    t = torch.arange(int(SAMPLE_RATE * seconds)) / SAMPLE_RATE
    labels = torch.randint(0, 4, (n,))
    freqs = 300.0 + 400.0 * labels.float()
    wave = torch.sin(2 * np.pi * freqs[:, None] * t[None]) + 0.3 * torch.randn(n, t.numel())
    return wave, labels


if __name__ == "__main__":
    torch.manual_seed(0)
    random.seed(0)
    np.random.seed(0)
    model = KeywordNet()
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    loss_fn = partial(F.cross_entropy, label_smoothing=0.05)
    history = []
    for epoch in range(cfg["epochs"]):
        t0 = time.time()
        losses = []
        for step in range(5):
            seconds = random.choice([0.4, 0.5, 0.6])
            wave, y = synth_batch(cfg["batch"], seconds)
            spec = log_mel(wave)
            spec, perm, lam = spec_augment(spec, cfg)
            logits = model(spec)
            if perm is None:
                loss = loss_fn(logits, y)
            else:
                loss = lam * loss_fn(logits, y) + (1 - lam) * loss_fn(logits, y[perm])
            if not torch.isfinite(loss):
                warnings.warn(f"non-finite loss at epoch {epoch} step {step}")
                continue
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        history.append(sum(losses) / max(len(losses), 1))
        print(f"epoch {epoch}: loss={history[-1]:.4f} ({time.time() - t0:.2f}s)")
    print("loss history:", [round(h, 3) for h in history])
