import torch


@torch.compile
def spectrogram(wave):
    spec = torch.stft(wave, n_fft=64, hop_length=16, window=torch.hann_window(64), return_complex=True)
    return spec.abs().pow(2)


spectrogram(torch.randn(1, 512))
