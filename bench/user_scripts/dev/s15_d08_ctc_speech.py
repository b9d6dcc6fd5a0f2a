import string
import torch
import torch.nn as nn
import torch.nn.functional as F


ALPHABET = ["<blank>"] + list(string.ascii_lowercase[:10]) + [" "]
CHAR2ID = {c: i for i, c in enumerate(ALPHABET)}


def encode_text(s):
    return [CHAR2ID[c] for c in s if c in CHAR2ID]


class ConvCTC(nn.Module):
    def __init__(self, n_feats=20, hidden=48, n_tokens=len(ALPHABET)):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv1d(n_feats, hidden, 5, padding=2), nn.GELU(),
            nn.Conv1d(hidden, hidden, 5, stride=2, padding=2), nn.GELU(),
        )
        self.rnn = nn.GRU(hidden, hidden // 2, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(hidden, n_tokens)

    def forward(self, feats, feat_lens):
        x = self.conv(feats.transpose(1, 2)).transpose(1, 2)
        out_lens = (feat_lens + 1) // 2
        x, _ = self.rnn(x)
        return self.fc(x).log_softmax(-1), out_lens


def greedy_decode(log_probs, lens):
    best = log_probs.argmax(-1)
    texts = []
    for seq, L in zip(best, lens):
        prev = -1
        chars = []
        for tok in seq[: int(L)].tolist():
            if tok != prev and tok != 0:
                chars.append(ALPHABET[tok])
            prev = tok
        texts.append("".join(chars))
    return texts


def edit_distance(a, b):
    dp = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        prev, dp[0] = dp[0], i
        for j in range(1, len(b) + 1):
            cur = dp[j]
            dp[j] = min(dp[j] + 1, dp[j - 1] + 1, prev + (a[i - 1] != b[j - 1]))
            prev = cur
    return dp[-1]


def make_batch(texts, frames_per_char=6, n_feats=20):
    lens = torch.tensor([len(t) * frames_per_char for t in texts])
    feats = torch.zeros(len(texts), int(lens.max()), n_feats)
    for i, t in enumerate(texts):
        for j, c in enumerate(t):
            feats[i, j * frames_per_char : (j + 1) * frames_per_char, CHAR2ID[c] % n_feats] = 1.0
    feats += 0.1 * torch.randn_like(feats)
    targets = torch.cat([torch.tensor(encode_text(t)) for t in texts])
    target_lens = torch.tensor([len(t) for t in texts])
    return feats, lens, targets, target_lens


def main():
    torch.manual_seed(0)
    corpus = ["abc", "bad cab", "face", "hij", "dig a bag", "jade", "ice", "fig"]
    model = ConvCTC()
    model = torch.compile(model, backend="eager")
    ctc = nn.CTCLoss(blank=0, zero_infinity=True)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for step in range(6):
        texts = [corpus[i] for i in torch.randint(0, len(corpus), (6,)).tolist()]
        feats, lens, targets, tlens = make_batch(texts)
        log_probs, out_lens = model(feats, lens)
        loss = ctc(log_probs.transpose(0, 1), targets, out_lens, tlens)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step} ctc {loss.item():.3f}")
    with torch.no_grad():
        feats, lens, _, _ = make_batch(corpus[:4])
        lp, ol = model(feats, lens)
        hyps = greedy_decode(lp, ol)
    cer = sum(edit_distance(h, r) for h, r in zip(hyps, corpus)) / sum(len(r) for r in corpus[:4])
    print("hyps", hyps, "cer", round(cer, 3))


if __name__ == "__main__":
    main()
