import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

SAMPLE_RATE = 8000


def hz_to_mel(f):
    return 2595.0 * math.log10(1.0 + f / 700.0)


def mel_to_hz(m):
    return 700.0 * (10 ** (m / 2595.0) - 1.0)


def build_mel_filterbank(n_mels, n_fft, sr, fmin=0.0, fmax=None):
    fmax = fmax or sr / 2
    mel_points = np.linspace(hz_to_mel(fmin), hz_to_mel(fmax), n_mels + 2)
    hz_points = np.array([mel_to_hz(m) for m in mel_points])
    bins = np.floor((n_fft + 1) * hz_points / sr).astype(int)
    fb = np.zeros((n_mels, n_fft // 2 + 1), dtype=np.float32)
    for m in range(1, n_mels + 1):
        left, center, right = bins[m - 1], bins[m], bins[m + 1]
        for k in range(left, center):
            fb[m - 1, k] = (k - left) / max(center - left, 1)
        for k in range(center, right):
            fb[m - 1, k] = (right - k) / max(right - center, 1)
    return torch.from_numpy(fb)


class MelFrontend(nn.Module):
    def __init__(self, n_fft=256, hop=80, n_mels=24, sr=SAMPLE_RATE, preemph=0.97):
        super().__init__()
        self.n_fft = n_fft
        self.hop = hop
        self.preemph = preemph
        self.register_buffer("window", torch.hann_window(n_fft), persistent=False)
        self.register_buffer("fbank", build_mel_filterbank(n_mels, n_fft, sr), persistent=False)

    def frame(self, wav):
        # wav: (B, T) -> (B, num_frames, n_fft)
        if wav.shape[-1] < self.n_fft:
            wav = F.pad(wav, (0, self.n_fft - wav.shape[-1]))
        pad = (self.hop - (wav.shape[-1] - self.n_fft) % self.hop) % self.hop
        wav = F.pad(wav, (0, pad))
        return wav.unfold(-1, self.n_fft, self.hop)

    def forward(self, wav):
        wav = wav - wav.mean(dim=-1, keepdim=True)
        wav = torch.cat([wav[:, :1], wav[:, 1:] - self.preemph * wav[:, :-1]], dim=-1)
        frames = self.frame(wav) * self.window
        spec = torch.fft.rfft(frames, n=self.n_fft)
        power = spec.real ** 2 + spec.imag ** 2
        mel = power @ self.fbank.t()
        logmel = torch.log(mel + 1e-6)
        # per-utterance CMVN
        mean = logmel.mean(dim=1, keepdim=True)
        std = logmel.std(dim=1, keepdim=True)
        return (logmel - mean) / (std + 1e-5)


class KeywordSpotter(nn.Module):
    def __init__(self, n_mels=24, hidden=64, n_classes=5):
        super().__init__()
        self.frontend = MelFrontend(n_mels=n_mels)
        self.conv = nn.Sequential(
            nn.Conv1d(n_mels, hidden, 5, padding=2), nn.BatchNorm1d(hidden), nn.ReLU(),
            nn.Conv1d(hidden, hidden, 3, padding=1, dilation=1), nn.BatchNorm1d(hidden), nn.ReLU(),
        )
        self.gru = nn.GRU(hidden, hidden, batch_first=True)
        self.classifier = nn.Linear(hidden, n_classes)
        self.debug = False

    def forward(self, wav):
        feats = self.frontend(wav)          # (B, frames, mels)
        if self.debug:
            print("feature frames:", feats.shape[1], "feat std:", feats.std().item())
        h = self.conv(feats.transpose(1, 2)).transpose(1, 2)
        out, _ = self.gru(h)
        return self.classifier(out.mean(dim=1))


def synth_batch(batch, seconds=0.5):
    t = torch.arange(int(SAMPLE_RATE * seconds)) / SAMPLE_RATE
    freqs = torch.randint(200, 2000, (batch, 1)).float()
    wav = 0.5 * torch.sin(2 * math.pi * freqs * t) + 0.05 * torch.randn(batch, t.numel())
    labels = (freqs.squeeze(1) // 400).long().clamp(max=4)
    return wav, labels


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    model = KeywordSpotter()
    model.debug = True
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    step_fn = torch.compile(model, backend="eager")
    for step in range(3):
        wav, labels = synth_batch(4)
        logits = step_fn(wav)
        loss = F.cross_entropy(logits, labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step}: loss={loss.item():.4f}")


if __name__ == "__main__":
    main()
