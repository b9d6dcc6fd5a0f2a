import numpy as np
import torch
import torch.nn as nn

CFG = {
    "cat_cardinalities": [5, 8, 3],
    "n_num": 4,
    "emb_dim": 4,
    "hidden": 32,
    "batch_size": 8,
    "epochs": 3,
}


def make_data(n=48, seed=0):
    rng = np.random.default_rng(seed)
    cats = np.stack([rng.integers(0, c, n) for c in CFG["cat_cardinalities"]], axis=1)
    nums = rng.normal(size=(n, CFG["n_num"])).astype(np.float32)
    nums[rng.random(nums.shape) < 0.15] = np.nan  # missing values
    y = (np.nan_to_num(nums[:, 0]) + 0.3 * cats[:, 0] > 0.5).astype(np.float32)
    return cats, nums, y


class TabularNet(nn.Module):
    def __init__(self, cards, n_num, emb_dim, hidden):
        super().__init__()
        self.embs = nn.ModuleList([nn.Embedding(c + 1, emb_dim) for c in cards])  # +1 for unknown
        self.num_fill = nn.Parameter(torch.zeros(n_num))
        in_dim = len(cards) * emb_dim + 2 * n_num
        self.mlp = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Dropout(0.1), nn.Linear(hidden, 1))

    def forward(self, x_cat, x_num):
        missing = torch.isnan(x_num)
        x_num = torch.where(missing, self.num_fill.expand_as(x_num), x_num)
        embs = [emb(x_cat[:, i]) for i, emb in enumerate(self.embs)]
        feats = torch.cat(embs + [x_num, missing.float()], dim=1)
        return self.mlp(feats).squeeze(-1)


def standardize(nums):
    mean = np.nanmean(nums, axis=0)
    std = np.nanstd(nums, axis=0) + 1e-6
    return (nums - mean) / std


@torch.compile
def train_step(model, opt, x_cat, x_num, y):
    logits = model(x_cat, x_num)
    loss = nn.functional.binary_cross_entropy_with_logits(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss


if __name__ == "__main__":
    torch.manual_seed(0)
    cats, nums, y = make_data()
    nums = standardize(nums)
    x_cat, x_num, y = torch.from_numpy(cats).long(), torch.from_numpy(nums), torch.from_numpy(y)
    model = TabularNet(CFG["cat_cardinalities"], CFG["n_num"], CFG["emb_dim"], CFG["hidden"])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    bs = CFG["batch_size"]
    for epoch in range(CFG["epochs"]):
        perm = torch.randperm(len(y))
        running = 0.0
        for i in range(0, len(y), bs):
            idx = perm[i:i + bs]
            running += train_step(model, opt, x_cat[idx], x_num[idx], y[idx]).item()
        model.eval()
        with torch.no_grad():
            acc = ((model(x_cat, x_num) > 0).float() == y).float().mean().item()
        model.train()
        print(f"epoch {epoch}: loss {running / (len(y) // bs):.4f} acc {acc:.3f}")
