import time
import torch
import torch.nn as nn
import torch.nn.functional as F

config = dict(vocab=50, d_model=32, n_heads=4, n_layers=2, max_len=24)


class CausalSelfAttention(nn.Module):
    def __init__(self, d_model, n_heads):
        super().__init__()
        self.n_heads = n_heads
        self.head_dim = d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)

    def forward(self, x, cache=None):
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=-1)
        q = q.view(B, T, self.n_heads, self.head_dim).transpose(1, 2)
        k = k.view(B, T, self.n_heads, self.head_dim).transpose(1, 2)
        v = v.view(B, T, self.n_heads, self.head_dim).transpose(1, 2)
        if cache is not None:
            k = torch.cat([cache["k"], k], dim=2)
            v = torch.cat([cache["v"], v], dim=2)
        new_cache = {"k": k, "v": v}
        is_causal = cache is None and T > 1
        y = F.scaled_dot_product_attention(q, k, v, is_causal=is_causal)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.proj(y), new_cache


class DecoderLayer(nn.Module):
    def __init__(self, d_model, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = CausalSelfAttention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))

    def forward(self, x, cache=None):
        a, cache = self.attn(self.ln1(x), cache)
        x = x + a
        return x + self.mlp(self.ln2(x)), cache


class TinyGPT(nn.Module):
    def __init__(self, vocab, d_model, n_heads, n_layers, max_len):
        super().__init__()
        self.tok = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(max_len, d_model)
        self.layers = nn.ModuleList([DecoderLayer(d_model, n_heads) for _ in range(n_layers)])
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab, bias=False)

    def forward(self, idx, caches=None, start_pos=0):
        T = idx.shape[1]
        pos = torch.arange(start_pos, start_pos + T)
        x = self.tok(idx) + self.pos(pos)[None]
        new_caches = []
        for i, layer in enumerate(self.layers):
            x, c = layer(x, None if caches is None else caches[i])
            new_caches.append(c)
        return self.head(self.ln_f(x)), new_caches


model = TinyGPT(**config).eval()
step_fn = torch.compile(model)


@torch.no_grad()
def generate(prompt, max_new_tokens=8, temperature=1.0, top_k=None):
    logits, caches = step_fn(prompt)
    out = [prompt]
    pos = prompt.shape[1]
    for _ in range(max_new_tokens):
        last = logits[:, -1, :] / temperature
        if top_k is not None:
            v, _ = torch.topk(last, top_k)
            last[last < v[:, [-1]]] = -float("inf")
        nxt = torch.multinomial(F.softmax(last, dim=-1), 1) if temperature > 0.5 else last.argmax(-1, keepdim=True)
        out.append(nxt)
        if (nxt == 0).all():  # eos
            break
        logits, caches = step_fn(nxt, caches, pos)
        pos += 1
    return torch.cat(out, dim=1)


if __name__ == "__main__":
    torch.manual_seed(0)
    prompt = torch.randint(1, config["vocab"], (2, 5))
    for run in range(2):
        t0 = time.time()
        seq = generate(prompt, max_new_tokens=6, temperature=1.0, top_k=10)
        print(f"run {run}: {seq.shape[1]} tokens in {time.time() - t0:.2f}s", seq[0].tolist())
    greedy = generate(prompt, max_new_tokens=4, temperature=0.1)
    print("greedy", greedy.tolist())
