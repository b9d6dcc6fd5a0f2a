import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyGPT(nn.Module):
    def __init__(self, vocab=64, dim=32, heads=4, layers=2, ctx=32):
        super().__init__()
        self.ctx = ctx
        self.wte = nn.Embedding(vocab, dim)
        self.wpe = nn.Parameter(torch.zeros(1, ctx, dim))
        self.blocks = nn.ModuleList(
            [nn.TransformerEncoderLayer(dim, heads, 2 * dim, dropout=0.0, batch_first=True, norm_first=True)
             for _ in range(layers)]
        )
        self.ln = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, idx):
        T = idx.shape[1]
        x = self.wte(idx) + self.wpe[:, :T]
        mask = nn.Transformer.generate_square_subsequent_mask(T)
        for blk in self.blocks:
            x = blk(x, src_mask=mask, is_causal=True)
        return self.head(self.ln(x))


def filter_logits(logits, top_k=0, top_p=1.0):
    if top_k > 0:
        kth = torch.topk(logits, top_k).values[..., -1, None]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    if top_p < 1.0:
        sorted_logits, sorted_idx = logits.sort(descending=True)
        cum = sorted_logits.softmax(-1).cumsum(-1)
        remove = cum > top_p
        remove[..., 1:] = remove[..., :-1].clone()
        remove[..., 0] = False
        logits = logits.scatter(-1, sorted_idx, sorted_logits.masked_fill(remove, float("-inf")))
    return logits


@torch.no_grad()
def generate(model, prompt, max_new=16, temperature=0.8, top_k=10, top_p=0.9, eos=None):
    idx = prompt
    fwd = torch.compile(model, backend="eager")
    for _ in range(max_new):
        cond = idx if idx.shape[1] <= model.ctx else idx[:, -model.ctx :]
        logits = fwd(cond)[:, -1] / max(temperature, 1e-5)
        logits = filter_logits(logits, top_k, top_p)
        nxt = torch.multinomial(F.softmax(logits, -1), 1)
        idx = torch.cat([idx, nxt], 1)
        if eos is not None and (nxt == eos).all():
            break
    return idx


def main():
    torch.manual_seed(42)
    model = TinyGPT()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    data = torch.arange(0, 2000) % 64
    for step in range(5):
        starts = torch.randint(0, len(data) - 17, (8,))
        batch = torch.stack([data[s : s + 17] for s in starts])
        logits = model(batch[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, 64), batch[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step} loss {loss.item():.3f}")
    model.eval()
    prompts = torch.tensor([[1, 2, 3], [10, 11, 12]])
    for cfg in [dict(top_k=5), dict(top_k=0, top_p=0.8), dict(temperature=1.5)]:
        out = generate(model, prompts, max_new=8, **cfg)
        print(cfg, out[:, 3:].tolist())


if __name__ == "__main__":
    main()
