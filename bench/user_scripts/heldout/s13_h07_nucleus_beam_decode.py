import math
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB = 50
EOS = 1
BOS = 2
HIDDEN = 48

settings = {
    "top_p": 0.9,
    "top_k": 20,
    "temperature": 0.9,
    "repetition_penalty": 1.3,
    "max_new": 10,
    "beam_size": 3,
    "length_penalty": 0.7,
    "min_len": 4,
}


class GRUDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, HIDDEN)
        self.gru = nn.GRUCell(HIDDEN, HIDDEN)
        self.out = nn.Linear(HIDDEN, VOCAB)

    def step(self, tok, h):
        h = self.gru(self.emb(tok), h)
        return self.out(h), h


def apply_repetition_penalty(logits, generated, penalty):
    for b, seq in enumerate(generated):
        for tok in set(seq):
            val = logits[b, tok]
            logits[b, tok] = val / penalty if val > 0 else val * penalty
    return logits


@torch.compile
def filter_logits(logits, top_k, top_p, temperature):
    logits = logits / max(temperature, 1e-5)
    if top_k > 0:
        kth = torch.topk(logits, top_k, dim=-1).values[..., -1, None]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    if top_p < 1.0:
        sorted_logits, sorted_idx = torch.sort(logits, descending=True, dim=-1)
        cum = sorted_logits.softmax(-1).cumsum(-1)
        remove = cum > top_p
        remove[..., 1:] = remove[..., :-1].clone()
        remove[..., 0] = False
        mask = remove.scatter(-1, sorted_idx, remove)
        logits = logits.masked_fill(mask, float("-inf"))
    return logits


@torch.no_grad()
def nucleus_sample(model, batch_size, cfg):
    h = torch.zeros(batch_size, HIDDEN)
    tok = torch.full((batch_size,), BOS, dtype=torch.long)
    generated = [[] for _ in range(batch_size)]
    finished = torch.zeros(batch_size, dtype=torch.bool)
    for _ in range(cfg["max_new"]):
        logits, h = model.step(tok, h)
        logits = apply_repetition_penalty(logits, generated, cfg["repetition_penalty"])
        logits = filter_logits(logits, cfg["top_k"], cfg["top_p"], cfg["temperature"])
        tok = torch.multinomial(logits.softmax(-1), 1).squeeze(1)
        tok = torch.where(finished, torch.full_like(tok, EOS), tok)
        for b, t in enumerate(tok.tolist()):
            if not finished[b]:
                generated[b].append(t)
        finished |= tok == EOS
        if finished.all():
            break
    return generated


@torch.no_grad()
def beam_search(model, cfg):
    beams = [([BOS], 0.0, torch.zeros(1, HIDDEN))]
    completed = []
    for _ in range(cfg["max_new"]):
        candidates = []
        for seq, score, h in beams:
            logits, h_new = model.step(torch.tensor([seq[-1]]), h)
            logp = F.log_softmax(logits, dim=-1).squeeze(0)
            if len(seq) <= cfg["min_len"]:
                logp[EOS] = -float("inf")
            vals, idx = logp.topk(cfg["beam_size"])
            for v, i in zip(vals.tolist(), idx.tolist()):
                candidates.append((seq + [i], score + v, h_new))
        candidates.sort(key=lambda c: c[1] / (len(c[0]) ** cfg["length_penalty"]), reverse=True)
        beams = []
        for c in candidates:
            (completed if c[0][-1] == EOS else beams).append(c)
            if len(beams) == cfg["beam_size"]:
                break
        if not beams:
            break
    completed.extend(beams)
    best = max(completed, key=lambda c: c[1] / (len(c[0]) ** cfg["length_penalty"]))
    return best[0][1:], best[1]


if __name__ == "__main__":
    torch.manual_seed(3)
    random.seed(3)
    model = GRUDecoder().eval()
    model.step = torch.compile(model.step)
    samples = nucleus_sample(model, batch_size=4, cfg=settings)
    for i, s in enumerate(samples):
        print(f"sample {i}: len={len(s)} tokens={s}")
    seq, score = beam_search(model, settings)
    print(f"beam: {seq} logp={score:.3f} ppl={math.exp(-score / max(len(seq), 1)):.2f}")
