import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB = 64
DIM = 32
HEADS = 4
LAYERS = 2
MAX_LEN = 48


def build_rope_cache(seq_len, head_dim, base=10000.0):
    inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2).float() / head_dim))
    t = torch.arange(seq_len).float()
    freqs = torch.outer(t, inv_freq)
    return freqs.cos(), freqs.sin()


def apply_rope(x, cos, sin):
    x1, x2 = x[..., ::2], x[..., 1::2]
    out = torch.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1)
    return out.flatten(-2)


class KVCache:
    def __init__(self):
        self.k = None
        self.v = None

    def update(self, k, v):
        if self.k is None:
            self.k, self.v = k, v
        else:
            self.k = torch.cat([self.k, k], dim=2)
            self.v = torch.cat([self.v, v], dim=2)
        return self.k, self.v

    def __len__(self):
        return 0 if self.k is None else self.k.shape[2]


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.head_dim = dim // heads
        self.qkv = nn.Linear(dim, dim * 3, bias=False)
        self.proj = nn.Linear(dim, dim, bias=False)

    def forward(self, x, cos, sin, cache=None):
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=-1)
        q = q.view(B, T, self.heads, self.head_dim).transpose(1, 2)
        k = k.view(B, T, self.heads, self.head_dim).transpose(1, 2)
        v = v.view(B, T, self.heads, self.head_dim).transpose(1, 2)
        start = len(cache) if cache is not None else 0
        q = apply_rope(q, cos[start:start + T], sin[start:start + T])
        k = apply_rope(k, cos[start:start + T], sin[start:start + T])
        if cache is not None:
            k, v = cache.update(k, v)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(self.head_dim)
        if T > 1:
            S = k.shape[2]
            mask = torch.ones(T, S, dtype=torch.bool).tril(diagonal=S - T)
            att = att.masked_fill(~mask, float("-inf"))
        y = F.softmax(att, dim=-1) @ v
        return self.proj(y.transpose(1, 2).reshape(B, T, C))


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(dim)
        self.attn = Attention(dim, heads)
        self.ln2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x, cos, sin, cache=None):
        x = x + self.attn(self.ln1(x), cos, sin, cache)
        return x + self.mlp(self.ln2(x))


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, DIM)
        self.blocks = nn.ModuleList([Block(DIM, HEADS) for _ in range(LAYERS)])
        self.ln_f = nn.LayerNorm(DIM)
        self.head = nn.Linear(DIM, VOCAB, bias=False)
        cos, sin = build_rope_cache(MAX_LEN, DIM // HEADS)
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)

    def forward(self, idx, caches=None):
        x = self.emb(idx)
        for i, blk in enumerate(self.blocks):
            x = blk(x, self.cos, self.sin, caches[i] if caches else None)
        return self.head(self.ln_f(x))


@torch.no_grad()
def generate(model, prompt, n_new, temperature=0.8):
    caches = [KVCache() for _ in range(LAYERS)]
    logits = model(prompt, caches)
    out = prompt.tolist()[0]
    for _ in range(n_new):
        probs = F.softmax(logits[:, -1] / temperature, dim=-1)
        nxt = torch.multinomial(probs, 1)
        tok = nxt.item()
        out.append(tok)
        if tok == 0 or len(out) >= MAX_LEN:
            break
        logits = model(nxt, caches)
    return out


if __name__ == "__main__":
    torch.manual_seed(1)
    model = TinyLM()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    cmodel = torch.compile(model)
    data = torch.randint(1, VOCAB, (8, 17))
    for step in range(5):
        x, y = data[:, :-1], data[:, 1:]
        logits = cmodel(x)
        loss = F.cross_entropy(logits.reshape(-1, VOCAB), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step}: loss {loss.item():.4f}")

    model.eval()
    t0 = time.time()
    prompt = torch.randint(1, VOCAB, (1, 5))
    toks = generate(cmodel, prompt, n_new=8)
    print("generated:", toks, f"in {time.time() - t0:.2f}s")
