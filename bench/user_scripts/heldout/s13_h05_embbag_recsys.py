import random
from collections import defaultdict

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

N_USERS = 200
N_ITEMS = 500
N_TAGS = 40
EMB = 16
NEG_PER_POS = 4
BATCH = 32
STEPS = 8


class TwoTower(nn.Module):
    def __init__(self):
        super().__init__()
        self.user_emb = nn.Embedding(N_USERS, EMB)
        self.hist_bag = nn.EmbeddingBag(N_ITEMS, EMB, mode="mean")
        self.item_emb = nn.Embedding(N_ITEMS, EMB)
        self.tag_bag = nn.EmbeddingBag(N_TAGS, EMB, mode="sum")
        self.user_mlp = nn.Sequential(nn.Linear(2 * EMB, EMB), nn.ReLU(), nn.Linear(EMB, EMB))
        self.item_mlp = nn.Sequential(nn.Linear(2 * EMB, EMB), nn.ReLU(), nn.Linear(EMB, EMB))
        self.temperature = 0.1

    def user_vec(self, users, hist_flat, hist_offsets):
        h = self.hist_bag(hist_flat, hist_offsets)
        u = torch.cat([self.user_emb(users), h], dim=-1)
        return F.normalize(self.user_mlp(u), dim=-1)

    def item_vec(self, items, tag_flat, tag_offsets):
        t = self.tag_bag(tag_flat, tag_offsets)
        v = torch.cat([self.item_emb(items), t], dim=-1)
        return F.normalize(self.item_mlp(v), dim=-1)

    def forward(self, users, hist_flat, hist_offsets, pos, pos_tags, pos_off, neg, neg_tags, neg_off):
        u = self.user_vec(users, hist_flat, hist_offsets)
        p = self.item_vec(pos, pos_tags, pos_off)
        n = self.item_vec(neg, neg_tags, neg_off).view(u.shape[0], -1, EMB)
        pos_score = (u * p).sum(-1, keepdim=True)
        neg_score = torch.einsum("bd,bkd->bk", u, n)
        logits = torch.cat([pos_score, neg_score], dim=1) / self.temperature
        labels = torch.zeros(u.shape[0], dtype=torch.long)
        return F.cross_entropy(logits, labels), logits


def to_bag(list_of_lists):
    offsets = [0]
    for lst in list_of_lists[:-1]:
        offsets.append(offsets[-1] + len(lst))
    flat = [x for lst in list_of_lists for x in lst]
    return torch.tensor(flat, dtype=torch.long), torch.tensor(offsets, dtype=torch.long)


def build_fake_data(seed=0):
    rng = random.Random(seed)
    item_tags = {i: rng.sample(range(N_TAGS), rng.randint(1, 4)) for i in range(N_ITEMS)}
    user_hist = defaultdict(list)
    for u in range(N_USERS):
        for _ in range(rng.randint(2, 12)):
            user_hist[u].append(rng.randrange(N_ITEMS))
    item_pop = np.bincount([i for h in user_hist.values() for i in h], minlength=N_ITEMS) + 1.0
    return item_tags, user_hist, item_pop / item_pop.sum()


def sample_batch(item_tags, user_hist, item_pop):
    users = random.sample(range(N_USERS), BATCH)
    hists, pos = [], []
    for u in users:
        h = user_hist[u]
        target = random.choice(h)
        rest = [i for i in h if i != target] or [target]
        hists.append(rest)
        pos.append(target)
    neg = np.random.choice(N_ITEMS, size=BATCH * NEG_PER_POS, p=item_pop ** 0.75 / (item_pop ** 0.75).sum())
    hist_flat, hist_off = to_bag(hists)
    pos_tags, pos_off = to_bag([item_tags[i] for i in pos])
    neg_tags, neg_off = to_bag([item_tags[int(i)] for i in neg])
    return (
        torch.tensor(users), hist_flat, hist_off,
        torch.tensor(pos), pos_tags, pos_off,
        torch.from_numpy(neg).long(), neg_tags, neg_off,
    )


def recall_at_k(logits, k=1):
    topk = logits.topk(k, dim=1).indices
    return (topk == 0).any(dim=1).float().mean().item()


if __name__ == "__main__":
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    item_tags, user_hist, item_pop = build_fake_data()
    model = TwoTower()
    opt = torch.optim.Adagrad(model.parameters(), lr=0.05)
    compiled = torch.compile(model, dynamic=True)
    for step in range(STEPS):
        batch = sample_batch(item_tags, user_hist, item_pop)
        loss, logits = compiled(*batch)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step:02d} loss={loss.item():.4f} recall@1={recall_at_k(logits.detach()):.3f}")
