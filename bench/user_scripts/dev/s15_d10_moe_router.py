import torch
import torch.nn as nn
import torch.nn.functional as F


class Expert(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden)
        self.w2 = nn.Linear(hidden, dim)

    def forward(self, x):
        return self.w2(F.gelu(self.w1(x)))


class MoELayer(nn.Module):
    def __init__(self, dim=32, hidden=64, n_experts=4, top_k=2, capacity_factor=1.25):
        super().__init__()
        self.experts = nn.ModuleList([Expert(dim, hidden) for _ in range(n_experts)])
        self.gate = nn.Linear(dim, n_experts, bias=False)
        self.top_k = top_k
        self.capacity_factor = capacity_factor
        self.stats = {"dropped": 0, "load": [0] * n_experts}

    def forward(self, x):
        B, T, D = x.shape
        flat = x.reshape(-1, D)
        probs = self.gate(flat).softmax(-1)
        weights, chosen = probs.topk(self.top_k, dim=-1)
        weights = weights / weights.sum(-1, keepdim=True)
        capacity = int(self.capacity_factor * flat.shape[0] * self.top_k / len(self.experts))
        out = torch.zeros_like(flat)
        for e, expert in enumerate(self.experts):
            token_idx, slot = torch.nonzero(chosen == e, as_tuple=True)
            if token_idx.numel() == 0:
                continue
            if token_idx.numel() > capacity:
                self.stats["dropped"] += token_idx.numel() - capacity
                token_idx, slot = token_idx[:capacity], slot[:capacity]
            self.stats["load"][e] += token_idx.numel()
            y = expert(flat[token_idx]) * weights[token_idx, slot, None]
            out.index_add_(0, token_idx, y)
        frac_tokens = F.one_hot(chosen[:, 0], len(self.experts)).float().mean(0)
        aux = len(self.experts) * (frac_tokens * probs.mean(0)).sum()
        return out.view(B, T, D), aux


class MoEBlock(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.ln1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, 4, batch_first=True)
        self.ln2 = nn.LayerNorm(dim)
        self.moe = MoELayer(dim)

    def forward(self, x):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        m, aux = self.moe(self.ln2(x))
        return x + m, aux


def main():
    torch.manual_seed(0)
    block = MoEBlock()
    head = nn.Linear(32, 8)
    params = list(block.parameters()) + list(head.parameters())
    opt = torch.optim.Adam(params, lr=2e-3)

    @torch.compile(backend="eager")
    def forward_loss(x, y):
        h, aux = block(x)
        logits = head(h.mean(1))
        return F.cross_entropy(logits, y) + 0.01 * aux, aux

    for step in range(6):
        x = torch.randn(8, 10, 32)
        y = torch.randint(0, 8, (8,))
        loss, aux = forward_loss(x, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step} loss {loss.item():.4f} aux {aux.item():.3f}")
    stats = block.moe.stats
    total = sum(stats["load"])
    print("expert load", [round(l / total, 3) for l in stats["load"]], "dropped", stats["dropped"])


if __name__ == "__main__":
    main()
