import torch
import torch.nn as nn
import torch.nn.functional as F
from collections import defaultdict


N_USERS, N_ITEMS, DIM = 100, 200, 32


class Tower(nn.Module):
    def __init__(self, n, dim, n_feats=0):
        super().__init__()
        self.emb = nn.Embedding(n, dim)
        self.feat_proj = nn.Linear(n_feats, dim) if n_feats else None
        self.mlp = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, dim))

    def forward(self, ids, feats=None):
        h = self.emb(ids)
        if self.feat_proj is not None and feats is not None:
            h = h + self.feat_proj(feats)
        return F.normalize(self.mlp(h), dim=-1)


class TwoTower(nn.Module):
    def __init__(self, temperature=0.1):
        super().__init__()
        self.user = Tower(N_USERS, DIM, n_feats=4)
        self.item = Tower(N_ITEMS, DIM)
        self.temperature = temperature

    def forward(self, users, user_feats, items):
        u = self.user(users, user_feats)
        v = self.item(items)
        logits = u @ v.T / self.temperature
        return logits


def in_batch_loss(logits, items):
    # mask duplicate positives that appear in the same batch
    same = items[:, None] == items[None, :]
    eye = torch.eye(len(items), dtype=torch.bool)
    logits = logits.masked_fill(same & ~eye, -1e9)
    labels = torch.arange(len(items))
    return F.cross_entropy(logits, labels)


def recall_at_k(model, interactions, k=10):
    hits = 0
    with torch.no_grad():
        all_items = model.item(torch.arange(N_ITEMS))
        for user, pos in interactions.items():
            u = model.user(torch.tensor([user]), torch.zeros(1, 4))
            scores = (u @ all_items.T).squeeze(0)
            topk = scores.topk(k).indices.tolist()
            hits += int(any(p in topk for p in pos))
    return hits / len(interactions)


def main():
    torch.manual_seed(0)
    model = TwoTower()
    step_fn = torch.compile(lambda u, f, i: in_batch_loss(model(u, f, i), i), backend="eager")
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    history = defaultdict(list)
    for step in range(6):
        users = torch.randint(0, N_USERS, (16,))
        items = (users * 2 + torch.randint(0, 3, (16,))) % N_ITEMS
        feats = torch.randn(16, 4)
        loss = step_fn(users, feats, items)
        opt.zero_grad()
        loss.backward()
        opt.step()
        for u, i in zip(users.tolist(), items.tolist()):
            history[u].append(i)
        print(f"step {step} loss {loss.item():.4f}")
    sample = dict(list(history.items())[:20])
    print("recall@10", round(recall_at_k(model, sample), 3))


if __name__ == "__main__":
    main()
