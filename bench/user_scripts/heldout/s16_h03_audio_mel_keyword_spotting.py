import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(5)

SAMPLE_RATE = 8000
N_FFT = 256
HOP = 64
N_MELS = 20
LABELS = ["yes", "no", "up", "down"]


def hz_to_mel(f):
    return 2595.0 * math.log10(1.0 + f / 700.0)


def mel_to_hz(m):
    return 700.0 * (10 ** (m / 2595.0) - 1.0)


def mel_filterbank(n_mels, n_fft, sr):
    n_freqs = n_fft // 2 + 1
    mel_pts = torch.linspace(hz_to_mel(0.0), hz_to_mel(sr / 2), n_mels + 2)
    hz_pts = torch.tensor([mel_to_hz(m) for m in mel_pts.tolist()])
    bins = torch.floor((n_fft + 1) * hz_pts / sr).long()
    fb = torch.zeros(n_mels, n_freqs)
    for m in range(1, n_mels + 1):
        left, center, right = bins[m - 1].item(), bins[m].item(), bins[m + 1].item()
        for k in range(left, center):
            fb[m - 1, k] = (k - left) / max(center - left, 1)
        for k in range(center, right):
            fb[m - 1, k] = (right - k) / max(right - center, 1)
    return fb


class LogMel(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("window", torch.hann_window(N_FFT))
        self.register_buffer("fb", mel_filterbank(N_MELS, N_FFT, SAMPLE_RATE))

    def forward(self, wav):
        spec = torch.stft(wav, N_FFT, hop_length=HOP, window=self.window, return_complex=True)
        power = spec.abs() ** 2
        mel = torch.matmul(self.fb, power)
        return torch.log(mel + 1e-6)


class KWSNet(nn.Module):
    def __init__(self, n_classes=len(LABELS)):
        super().__init__()
        self.frontend = LogMel()
        self.conv = nn.Sequential(
            nn.Conv1d(N_MELS, 32, 5, padding=2), nn.BatchNorm1d(32), nn.ReLU(),
            nn.Conv1d(32, 32, 5, padding=2), nn.BatchNorm1d(32), nn.ReLU(),
        )
        self.fc = nn.Linear(32, n_classes)

    def forward(self, wav):
        feats = self.frontend(wav)
        feats = (feats - feats.mean(dim=-1, keepdim=True)) / (feats.std(dim=-1, keepdim=True) + 1e-5)
        h = self.conv(feats)
        return self.fc(h.mean(dim=-1))


def synth_batch(n=8, seconds=0.5):
    t = torch.arange(int(SAMPLE_RATE * seconds)) / SAMPLE_RATE
    labels = torch.randint(0, len(LABELS), (n,))
    base_freqs = torch.tensor([300.0, 700.0, 1200.0, 2000.0])
    f = base_freqs[labels][:, None]
    wav = torch.sin(2 * math.pi * f * t) + 0.3 * torch.randn(n, t.numel())
    gain = torch.empty(n, 1).uniform_(0.5, 1.5)
    return wav * gain, labels


model = KWSNet()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
step_fn = torch.compile(model, backend="eager")

for epoch in range(4):
    wav, y = synth_batch()
    logits = step_fn(wav)
    loss = F.cross_entropy(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    acc = (logits.argmax(-1) == y).float().mean()
    print(f"epoch {epoch}: loss={loss.item():.3f} acc={acc.item():.2f}")

model.eval()
with torch.no_grad():
    wav, y = synth_batch(4)
    probs = step_fn(wav).softmax(-1)
for p, label in zip(probs, y.tolist()):
    pred = LABELS[int(p.argmax())]
    print(f"true={LABELS[label]:>4} pred={pred:>4} conf={p.max().item():.2f}")
