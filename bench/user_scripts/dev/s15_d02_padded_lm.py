import random
import torch
import torch.nn as nn
import torch.nn.functional as F
from dataclasses import dataclass


@dataclass
class LMConfig:
    vocab: int = 50
    d_model: int = 32
    n_heads: int = 4
    n_layers: int = 2
    max_len: int = 24
    pad_id: int = 0
    batch: int = 6
    steps: int = 5


def make_sentences(cfg, n):
    sents = []
    for _ in range(n):
        length = random.randint(5, cfg.max_len)
        sents.append([random.randint(1, cfg.vocab - 1) for _ in range(length)])
    return sents


def collate(sents, pad_id):
    max_len = max(len(s) for s in sents)
    ids = torch.full((len(sents), max_len), pad_id, dtype=torch.long)
    for i, s in enumerate(sents):
        ids[i, : len(s)] = torch.tensor(s)
    lengths = torch.tensor([len(s) for s in sents])
    return ids, lengths


class CausalLM(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.tok = nn.Embedding(cfg.vocab, cfg.d_model, padding_idx=cfg.pad_id)
        self.pos = nn.Embedding(cfg.max_len, cfg.d_model)
        layer = nn.TransformerEncoderLayer(cfg.d_model, cfg.n_heads, 64, batch_first=True, dropout=0.0)
        self.enc = nn.TransformerEncoder(layer, cfg.n_layers)
        self.out = nn.Linear(cfg.d_model, cfg.vocab)

    def forward(self, ids):
        T = ids.size(1)
        pos = torch.arange(T, device=ids.device)
        h = self.tok(ids) + self.pos(pos)[None]
        causal = torch.triu(torch.full((T, T), float("-inf")), diagonal=1)
        pad_mask = ids == self.cfg.pad_id
        h = self.enc(h, mask=causal, src_key_padding_mask=pad_mask)
        return self.out(h)


def lm_loss(logits, ids, pad_id):
    logits = logits[:, :-1].reshape(-1, logits.size(-1))
    targets = ids[:, 1:].reshape(-1)
    keep = targets != pad_id
    return F.cross_entropy(logits[keep], targets[keep])


def main():
    random.seed(0)
    torch.manual_seed(0)
    cfg = LMConfig()
    model = CausalLM(cfg)
    compiled_loss = torch.compile(lm_loss, backend="eager")
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    history = []
    for step in range(cfg.steps):
        ids, lengths = collate(make_sentences(cfg, cfg.batch), cfg.pad_id)
        logits = model(ids)
        loss = compiled_loss(logits, ids, cfg.pad_id)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        history.append(loss.item())
        print(f"step {step} tokens {int(lengths.sum())} loss {history[-1]:.3f}")
    ppl = torch.exp(torch.tensor(history[-1]))
    print("final ppl", round(ppl.item(), 2))


if __name__ == "__main__":
    main()
