import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB = ["_", "a", "b", "c", "d", "e"]  # index 0 is the CTC blank
N_MELS = 16


class ConvSubsample(nn.Module):
    def __init__(self, n_mels, d):
        super().__init__()
        self.conv = nn.Conv1d(n_mels, d, kernel_size=3, stride=2, padding=1)

    def forward(self, x):  # x: (B, T, F)
        return F.gelu(self.conv(x.transpose(1, 2))).transpose(1, 2)


class SpeechModel(nn.Module):
    def __init__(self, n_mels=N_MELS, d=32, n_vocab=len(VOCAB)):
        super().__init__()
        self.sub = ConvSubsample(n_mels, d)
        self.rnn = nn.GRU(d, d, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2 * d, n_vocab)

    def forward(self, feats):
        h = self.sub(feats)
        h, _ = self.rnn(h)
        return self.out(h).log_softmax(-1)


def fake_batch(bs=4, max_frames=40):
    lengths = np.random.randint(max_frames // 2, max_frames + 1, size=bs)
    feats = torch.zeros(bs, max_frames, N_MELS)
    targets, target_lens = [], []
    for i, L in enumerate(lengths):
        feats[i, :L] = torch.randn(L, N_MELS)
        n_tok = np.random.randint(2, 6)
        targets.append(torch.randint(1, len(VOCAB), (n_tok,)))
        target_lens.append(n_tok)
    return feats, torch.tensor(lengths), torch.cat(targets), torch.tensor(target_lens)


def greedy_decode(log_probs):
    best = log_probs.argmax(-1).tolist()
    results = []
    for seq in best:
        chars, prev = [], None
        for idx in seq:
            if idx != prev and idx != 0:
                chars.append(VOCAB[idx])
            prev = idx
        results.append("".join(chars))
    return results


model = SpeechModel()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
fast_model = torch.compile(model)
ctc = nn.CTCLoss(blank=0, zero_infinity=True)

if __name__ == "__main__":
    torch.manual_seed(0)
    np.random.seed(0)
    for step in range(3):
        feats, lens, targets, target_lens = fake_batch()
        log_probs = fast_model(feats)
        out_lens = (lens + 1) // 2
        assert log_probs.shape[1] >= out_lens.max().item()
        loss = ctc(log_probs.transpose(0, 1), targets, out_lens, target_lens)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        print(f"step {step} ctc {loss.item():.3f} sample: {greedy_decode(log_probs.detach())[0]!r}")
