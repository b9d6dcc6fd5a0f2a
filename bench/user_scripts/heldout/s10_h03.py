"""Greedy and beam-search decoding with a tiny GRU decoder and a toy vocab helper."""
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(3)


class CharVocab:
    def __init__(self, chars):
        self.specials = ["<pad>", "<bos>", "<eos>"]
        self.itos = self.specials + list(chars)
        self.stoi = {c: i for i, c in enumerate(self.itos)}
        self.pad_id = 0
        self.bos_id = 1
        self.eos_id = 2

    def __len__(self):
        return len(self.itos)

    def decode(self, ids):
        out = []
        for i in ids:
            if i == self.eos_id:
                break
            if i >= len(self.specials):
                out.append(self.itos[i])
        return "".join(out)


@dataclass
class DecodeConfig:
    max_len: int = 10
    beam_size: int = 3
    length_penalty: float = 0.7


class TinyDecoder(nn.Module):
    def __init__(self, vocab_size, hidden=24):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, hidden)
        self.cell = nn.GRUCell(hidden, hidden)
        self.proj = nn.Linear(hidden, vocab_size)

    def step(self, tokens, h):
        e = self.embed(tokens)
        h = self.cell(e, h)
        return F.log_softmax(self.proj(h), dim=-1), h


def length_norm(score, length, alpha):
    return score / (((5.0 + length) / 6.0) ** alpha)


@torch.compile(backend="eager")
def greedy_decode(model, h0, bos_id, eos_id, max_len):
    batch = h0.shape[0]
    tokens = torch.full((batch,), bos_id, dtype=torch.long)
    h = h0
    outputs = []
    finished = torch.zeros(batch, dtype=torch.bool)
    for _ in range(max_len):
        logp, h = model.step(tokens, h)
        tokens = logp.argmax(dim=-1)
        tokens = torch.where(finished, torch.full_like(tokens, eos_id), tokens)
        outputs.append(tokens)
        finished = finished | (tokens == eos_id)
        if finished.all():
            break
    return torch.stack(outputs, dim=1)


def beam_search(model, h0, vocab, cfg):
    # h0: (1, hidden) single example
    beams = [([vocab.bos_id], 0.0, h0)]
    completed = []
    for t in range(cfg.max_len):
        candidates = []
        for seq, score, h in beams:
            last = torch.tensor([seq[-1]])
            logp, h_new = compiled_step(model, last, h)
            top_lp, top_ids = logp[0].topk(cfg.beam_size)
            for lp, idx in zip(top_lp.tolist(), top_ids.tolist()):
                candidates.append((seq + [idx], score + lp, h_new))
        candidates.sort(key=lambda c: length_norm(c[1], len(c[0]), cfg.length_penalty), reverse=True)
        beams = []
        for seq, score, h in candidates:
            if seq[-1] == vocab.eos_id:
                completed.append((seq, score))
            else:
                beams.append((seq, score, h))
            if len(beams) == cfg.beam_size:
                break
        if not beams:
            break
    completed.extend((s, sc) for s, sc, _ in beams)
    best = max(completed, key=lambda c: length_norm(c[1], len(c[0]), cfg.length_penalty))
    return best[0][1:]


def _step(model, tokens, h):
    logp, h = model.step(tokens, h)
    logp = logp.clone()
    logp[:, 0] = float("-inf")  # never emit padding
    return logp, h


compiled_step = torch.compile(_step, backend="eager")


if __name__ == "__main__":
    vocab = CharVocab("abcdefgh")
    cfg = DecodeConfig()
    model = TinyDecoder(len(vocab)).eval()
    with torch.no_grad():
        for trial in range(2):
            h0 = torch.randn(3, 24)
            out = greedy_decode(model, h0, vocab.bos_id, vocab.eos_id, cfg.max_len)
            print("greedy:", [vocab.decode(row) for row in out.tolist()])
            best = beam_search(model, h0[:1], vocab, cfg)
            print("beam:", vocab.decode(best))
