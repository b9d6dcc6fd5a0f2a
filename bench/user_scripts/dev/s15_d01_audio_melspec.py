import math
import torch
import torch.nn as nn
import torch.nn.functional as F


CFG = {
    "sample_rate": 8000,
    "n_fft": 128,
    "hop": 64,
    "n_mels": 16,
    "n_classes": 5,
    "batch": 8,
    "steps": 4,
}


def hz_to_mel(f):
    return 2595.0 * math.log10(1.0 + f / 700.0)


def mel_to_hz(m):
    return 700.0 * (10 ** (m / 2595.0) - 1.0)


def build_mel_fb(n_fft, n_mels, sr):
    n_freqs = n_fft // 2 + 1
    mels = torch.linspace(hz_to_mel(0.0), hz_to_mel(sr / 2), n_mels + 2)
    hz = torch.tensor([mel_to_hz(m.item()) for m in mels])
    bins = torch.floor((n_fft + 1) * hz / sr).long()
    fb = torch.zeros(n_mels, n_freqs)
    for i in range(1, n_mels + 1):
        left, center, right = bins[i - 1], bins[i], bins[i + 1]
        for k in range(left, center):
            fb[i - 1, k] = (k - left) / max(1, (center - left).item())
        for k in range(center, right):
            fb[i - 1, k] = (right - k) / max(1, (right - center).item())
    return fb


class MelFrontend(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.n_fft = cfg["n_fft"]
        self.hop = cfg["hop"]
        self.register_buffer("window", torch.hann_window(self.n_fft))
        self.register_buffer("fb", build_mel_fb(cfg["n_fft"], cfg["n_mels"], cfg["sample_rate"]))

    def forward(self, wav):
        spec = torch.stft(wav, self.n_fft, self.hop, window=self.window, return_complex=True)
        power = spec.abs() ** 2
        mel = torch.matmul(self.fb, power)
        logmel = torch.log(mel + 1e-6)
        if logmel.isnan().any():
            print("warning: nan in log-mel")
        return logmel


class AudioNet(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.front = MelFrontend(cfg)
        self.conv1 = nn.Conv1d(cfg["n_mels"], 32, 3, padding=1)
        self.conv2 = nn.Conv1d(32, 32, 3, padding=1)
        self.bn = nn.BatchNorm1d(32)
        self.head = nn.Linear(32, cfg["n_classes"])

    def forward(self, wav):
        x = self.front(wav)
        x = (x - x.mean(dim=-1, keepdim=True)) / (x.std(dim=-1, keepdim=True) + 1e-5)
        x = F.relu(self.conv1(x))
        x = F.relu(self.bn(self.conv2(x)))
        x = x.mean(dim=-1)
        return self.head(x)


def make_batch(cfg):
    t = torch.arange(cfg["sample_rate"] // 4) / cfg["sample_rate"]
    labels = torch.randint(0, cfg["n_classes"], (cfg["batch"],))
    freqs = 200.0 + 300.0 * labels.float()
    wav = torch.sin(2 * math.pi * freqs[:, None] * t[None, :])
    wav = wav + 0.1 * torch.randn_like(wav)
    return wav, labels


def main():
    torch.manual_seed(0)
    model = AudioNet(CFG)
    model = torch.compile(model, backend="eager")
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(CFG["steps"]):
        wav, labels = make_batch(CFG)
        logits = model(wav)
        loss = F.cross_entropy(logits, labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        acc = (logits.argmax(-1) == labels).float().mean()
        print(f"step {step} loss {loss.item():.4f} acc {acc.item():.3f}")

    model.eval()
    with torch.no_grad():
        wav, labels = make_batch(CFG)
        preds = model(wav).argmax(-1)
        print("eval preds", preds.tolist(), "labels", labels.tolist())


if __name__ == "__main__":
    main()
