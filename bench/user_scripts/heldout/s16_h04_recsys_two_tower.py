from dataclasses import dataclass
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(7)


@dataclass
class RecConfig:
    num_users: int = 200
    num_items: int = 500
    num_genres: int = 8
    dim: int = 16
    temperature: float = 0.1
    batch_size: int = 32
    steps: int = 6


class UserTower(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.user_emb = nn.Embedding(cfg.num_users, cfg.dim)
        self.hist_emb = nn.EmbeddingBag(cfg.num_items, cfg.dim, mode="mean", padding_idx=0)
        self.mlp = nn.Sequential(nn.Linear(2 * cfg.dim, 32), nn.ReLU(), nn.Linear(32, cfg.dim))

    def forward(self, user_ids, history):
        h = torch.cat([self.user_emb(user_ids), self.hist_emb(history)], dim=-1)
        return F.normalize(self.mlp(h), dim=-1)


class ItemTower(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.item_emb = nn.Embedding(cfg.num_items, cfg.dim)
        self.genre_emb = nn.Embedding(cfg.num_genres, cfg.dim)
        self.mlp = nn.Sequential(nn.Linear(cfg.dim, 32), nn.ReLU(), nn.Linear(32, cfg.dim))

    def forward(self, item_ids, genres):
        return F.normalize(self.mlp(self.item_emb(item_ids) + self.genre_emb(genres)), dim=-1)


class TwoTower(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.users = UserTower(cfg)
        self.items = ItemTower(cfg)

    def forward(self, user_ids, history, item_ids, genres):
        u = self.users(user_ids, history)
        v = self.items(item_ids, genres)
        logits = u @ v.T / self.cfg.temperature
        # in-batch negatives; mask accidental duplicates of the same item
        dup = (item_ids[:, None] == item_ids[None, :]) & ~torch.eye(len(item_ids), dtype=torch.bool)
        logits = logits.masked_fill(dup, -1e4)
        labels = torch.arange(len(user_ids))
        return F.cross_entropy(logits, labels)


def sample_batch(cfg, item_genre):
    users = torch.randint(0, cfg.num_users, (cfg.batch_size,))
    history = torch.randint(1, cfg.num_items, (cfg.batch_size, 10))
    history[:, 7:] = 0  # padded history
    items = (users * 3 + torch.randint(0, 5, (cfg.batch_size,))) % cfg.num_items
    return users, history, items, item_genre[items]


def recall_at_k(model, cfg, item_genre, k=10):
    with torch.no_grad():
        all_items = torch.arange(cfg.num_items)
        item_vecs = model.items(all_items, item_genre)
        users, history, items, _ = sample_batch(cfg, item_genre)
        scores = model.users(users, history) @ item_vecs.T
        topk = scores.topk(k, dim=-1).indices
        hits = (topk == items[:, None]).any(dim=-1).float()
    return hits.mean().item()


cfg = RecConfig()
item_genre = torch.randint(0, cfg.num_genres, (cfg.num_items,))
model = TwoTower(cfg)
opt = torch.optim.Adagrad(model.parameters(), lr=0.1)
compiled = torch.compile(model, backend="eager")

for step in range(cfg.steps):
    batch = sample_batch(cfg, item_genre)
    loss = compiled(*batch)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss={loss.item():.4f}")

print(f"recall@10 = {recall_at_k(model, cfg, item_genre):.3f}")
