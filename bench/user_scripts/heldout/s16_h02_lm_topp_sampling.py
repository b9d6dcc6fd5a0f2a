import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(3)

VOCAB = 50
EOS_ID = 0
BOS_ID = 1


class TinyGPT(nn.Module):
    def __init__(self, vocab=VOCAB, d_model=32, n_heads=4, n_layers=2, max_len=64):
        super().__init__()
        self.tok = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(max_len, d_model)
        layer = nn.TransformerEncoderLayer(d_model, n_heads, dim_feedforward=64, batch_first=True, dropout=0.0)
        self.blocks = nn.TransformerEncoder(layer, n_layers)
        self.ln = nn.LayerNorm(d_model)
        self.lm_head = nn.Linear(d_model, vocab, bias=False)

    def forward(self, idx):
        T = idx.size(1)
        pos = torch.arange(T, device=idx.device)
        h = self.tok(idx) + self.pos(pos)
        causal = torch.triu(torch.full((T, T), float("-inf")), diagonal=1)
        h = self.blocks(h, mask=causal)
        return self.lm_head(self.ln(h))


def top_k_top_p_filter(logits, top_k=0, top_p=1.0):
    if top_k > 0:
        kth = torch.topk(logits, top_k, dim=-1).values[..., -1, None]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    if top_p < 1.0:
        sorted_logits, sorted_idx = torch.sort(logits, descending=True, dim=-1)
        cum = sorted_logits.softmax(dim=-1).cumsum(dim=-1)
        remove = cum > top_p
        remove[..., 1:] = remove[..., :-1].clone()
        remove[..., 0] = False
        remove = remove.scatter(-1, sorted_idx, remove)
        logits = logits.masked_fill(remove, float("-inf"))
    return logits


@torch.compile(backend="eager")
def next_token(model, idx, temperature, top_k, top_p):
    logits = model(idx)[:, -1, :]
    if temperature == 0:
        return logits.argmax(dim=-1, keepdim=True)
    logits = logits / temperature
    logits = top_k_top_p_filter(logits, top_k=top_k, top_p=top_p)
    probs = F.softmax(logits, dim=-1)
    return torch.multinomial(probs, num_samples=1)


def generate(model, prompt, max_new_tokens=8, temperature=1.0, top_k=0, top_p=1.0):
    idx = prompt
    finished = torch.zeros(idx.size(0), dtype=torch.bool)
    for _ in range(max_new_tokens):
        nxt = next_token(model, idx, temperature, top_k, top_p)
        nxt[finished] = EOS_ID
        idx = torch.cat([idx, nxt], dim=1)
        finished |= nxt.squeeze(1) == EOS_ID
        if finished.all():
            break
    return idx


def perplexity(model, seq):
    with torch.no_grad():
        logits = model(seq[:, :-1])
        nll = F.cross_entropy(logits.reshape(-1, VOCAB), seq[:, 1:].reshape(-1))
    return math.exp(nll.item())


model = TinyGPT().eval()
prompt = torch.cat([torch.full((3, 1), BOS_ID), torch.randint(2, VOCAB, (3, 3))], dim=1)

settings = [
    dict(temperature=0.0),
    dict(temperature=0.8, top_k=10),
    dict(temperature=1.2, top_p=0.9),
]
with torch.no_grad():
    for cfg in settings:
        out = generate(model, prompt, **cfg)
        lens = [(row != EOS_ID).sum().item() for row in out]
        print(f"{cfg}: shape={tuple(out.shape)} lens={lens} ppl={perplexity(model, out):.2f}")
        print("   first:", out[0].tolist())
