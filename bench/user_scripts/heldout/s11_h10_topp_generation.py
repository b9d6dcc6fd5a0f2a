import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB_SIZE = 64
EOS_ID = 1
BOS_ID = 2


class TinyLM(nn.Module):
    def __init__(self, vocab=VOCAB_SIZE, dim=32, heads=4, layers=2, max_len=64):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(max_len, dim)
        layer = nn.TransformerEncoderLayer(dim, heads, dim * 2, dropout=0.0, batch_first=True)
        self.blocks = nn.TransformerEncoder(layer, layers)
        self.ln = nn.LayerNorm(dim)
        self.lm_head = nn.Linear(dim, vocab, bias=False)
        self.lm_head.weight = self.tok.weight

    def forward(self, ids):
        T = ids.shape[1]
        pos = torch.arange(T, device=ids.device)
        x = self.tok(ids) + self.pos(pos)[None]
        causal = nn.Transformer.generate_square_subsequent_mask(T)
        h = self.blocks(x, mask=causal, is_causal=True)
        return self.lm_head(self.ln(h))


def apply_repetition_penalty(logits, generated, penalty):
    if penalty == 1.0:
        return logits
    for b in range(logits.shape[0]):
        prev = set(generated[b].tolist())
        for tok in prev:
            if logits[b, tok] > 0:
                logits[b, tok] /= penalty
            else:
                logits[b, tok] *= penalty
    return logits


def top_p_filter(logits, top_p=0.9, min_keep=1):
    sorted_logits, sorted_idx = torch.sort(logits, descending=True, dim=-1)
    cum_probs = sorted_logits.softmax(dim=-1).cumsum(dim=-1)
    remove = cum_probs > top_p
    remove[..., 1:] = remove[..., :-1].clone()
    remove[..., :min_keep] = False
    mask = remove.scatter(-1, sorted_idx, remove)
    return logits.masked_fill(mask, float("-inf"))


@torch.compile(backend="eager")
def generate(model, prompt, max_new_tokens=12, temperature=0.8, top_p=0.9,
             repetition_penalty=1.2, stop_ids=(EOS_ID,)):
    ids = prompt.clone()
    finished = torch.zeros(ids.shape[0], dtype=torch.bool)
    for step in range(max_new_tokens):
        logits = model(ids)[:, -1, :]
        logits = apply_repetition_penalty(logits, ids, repetition_penalty)
        if temperature > 0:
            logits = logits / temperature
            logits = top_p_filter(logits, top_p)
            probs = F.softmax(logits, dim=-1)
            next_tok = torch.multinomial(probs, num_samples=1).squeeze(1)
        else:
            next_tok = logits.argmax(dim=-1)
        next_tok = torch.where(finished, torch.full_like(next_tok, EOS_ID), next_tok)
        ids = torch.cat([ids, next_tok[:, None]], dim=1)
        for s in stop_ids:
            finished |= next_tok == s
        if finished.all():
            break
    return ids


def decode(ids):
    out = []
    for t in ids:
        if t == EOS_ID:
            break
        out.append(f"<{t}>")
    return " ".join(out)


def main():
    torch.manual_seed(0)
    model = TinyLM().eval()
    with torch.no_grad():
        for trial in range(3):
            prompt = torch.cat([
                torch.full((2, 1), BOS_ID, dtype=torch.long),
                torch.randint(3, VOCAB_SIZE, (2, 3)),
            ], dim=1)
            out = generate(model, prompt, temperature=0.8 if trial < 2 else 0.0)
            for row in out.tolist():
                print(f"trial {trial}: len={len(row)} :: {decode(row[:10])}")


if __name__ == "__main__":
    main()
