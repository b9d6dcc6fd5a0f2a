from enum import Enum
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(14)
rng = np.random.default_rng(14)


class Col(Enum):
    CITY = "city"
    DEVICE = "device"
    PLAN = "plan"


CARDINALITIES = {Col.CITY: 12, Col.DEVICE: 4, Col.PLAN: 3}
NUM_NUMERIC = 5


def emb_dim(card):
    return min(16, (card + 1) // 2)


def make_dataframe(n):
    cats = {c: rng.integers(0, k, size=n) for c, k in CARDINALITIES.items()}
    numeric = rng.normal(size=(n, NUM_NUMERIC)).astype(np.float32)
    numeric[rng.random((n, NUM_NUMERIC)) < 0.05] = np.nan  # missing values
    logit = 0.8 * (cats[Col.PLAN] == 2) - 0.5 * (cats[Col.DEVICE] == 0) + np.nan_to_num(numeric[:, 0])
    label = (logit + rng.normal(scale=0.5, size=n) > 0.3).astype(np.float32)
    return cats, numeric, label


class TabularMLP(nn.Module):
    def __init__(self, cardinalities, num_numeric, hidden=(64, 32), dropout=0.1):
        super().__init__()
        self.cols = list(cardinalities)
        self.embs = nn.ModuleDict({c.value: nn.Embedding(k + 1, emb_dim(k)) for c, k in cardinalities.items()})
        in_dim = sum(emb_dim(k) for k in cardinalities.values()) + num_numeric * 2
        layers = []
        for h in hidden:
            layers += [nn.Linear(in_dim, h), nn.BatchNorm1d(h), nn.ReLU(), nn.Dropout(dropout)]
            in_dim = h
        self.mlp = nn.Sequential(*layers)
        self.out = nn.Linear(in_dim, 1)

    def forward(self, cat_x, num_x):
        missing = torch.isnan(num_x)
        num_x = torch.where(missing, torch.zeros_like(num_x), num_x)
        parts = [self.embs[c.value](cat_x[:, i]) for i, c in enumerate(self.cols)]
        parts += [num_x, missing.float()]
        return self.out(self.mlp(torch.cat(parts, dim=1))).squeeze(-1)


def to_tensors(cats, numeric, label, stats=None):
    cat_x = torch.from_numpy(np.stack([cats[c] for c in CARDINALITIES], axis=1)).long()
    if stats is None:
        stats = (np.nanmean(numeric, axis=0), np.nanstd(numeric, axis=0) + 1e-6)
    num_x = torch.from_numpy((numeric - stats[0]) / stats[1]).float()
    return cat_x, num_x, torch.from_numpy(label), stats


def roc_auc(scores, labels):
    order = torch.argsort(scores)
    ranks = torch.empty_like(order, dtype=torch.float)
    ranks[order] = torch.arange(1, len(scores) + 1, dtype=torch.float)
    pos = labels == 1
    n_pos, n_neg = int(pos.sum()), int((~pos).sum())
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    return ((ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)).item()


train_cat, train_num, train_y, stats = to_tensors(*make_dataframe(600))
val_cat, val_num, val_y, _ = to_tensors(*make_dataframe(200), stats=stats)

model = TabularMLP(CARDINALITIES, NUM_NUMERIC)
pos_weight = (train_y == 0).sum() / (train_y == 1).sum()
opt = torch.optim.AdamW(model.parameters(), lr=5e-3, weight_decay=1e-2)
cmodel = torch.compile(model, backend="eager")

for epoch in range(5):
    model.train()
    perm = torch.randperm(len(train_y))
    for i in range(0, len(perm), 100):
        idx = perm[i:i + 100]
        logits = cmodel(train_cat[idx], train_num[idx])
        loss = F.binary_cross_entropy_with_logits(logits, train_y[idx], pos_weight=pos_weight)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        val_scores = cmodel(val_cat, val_num)
    print(f"epoch {epoch}: train_loss={loss.item():.4f} val_auc={roc_auc(val_scores, val_y):.4f}")

for c in CARDINALITIES:
    w = model.embs[c.value].weight
    print(f"{c.name:<7} embedding norms: {w.norm(dim=1)[:4].detach().numpy().round(2)}")
