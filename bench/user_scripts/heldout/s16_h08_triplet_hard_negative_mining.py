import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(15)

NUM_IDENTITIES = 10
SAMPLES_PER_ID = 4
MARGIN = 0.3


class EmbeddingNet(nn.Module):
    def __init__(self, in_dim=32, emb=16):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(in_dim, 64), nn.PReLU(), nn.Linear(64, emb))

    def forward(self, x):
        return F.normalize(self.body(x), p=2, dim=1)


def pairwise_distances(emb, squared=False):
    dot = emb @ emb.t()
    sq = torch.diagonal(dot)
    d = sq.unsqueeze(0) - 2.0 * dot + sq.unsqueeze(1)
    d = d.clamp(min=0.0)
    if not squared:
        mask = (d == 0.0).float()
        d = torch.sqrt(d + mask * 1e-16) * (1.0 - mask)
    return d


def batch_hard_triplet_loss(labels, emb, margin, squared=False):
    dist = pairwise_distances(emb, squared=squared)
    same = labels.unsqueeze(0) == labels.unsqueeze(1)
    eye = torch.eye(labels.size(0), dtype=torch.bool)
    pos_mask = same & ~eye
    hardest_pos = (dist * pos_mask.float()).max(dim=1).values
    max_d = dist.max(dim=1, keepdim=True).values
    hardest_neg = (dist + max_d * same.float()).min(dim=1).values
    loss = F.relu(hardest_pos - hardest_neg + margin)
    frac_active = (loss > 1e-16).float().mean()
    return loss.mean(), frac_active


def semi_hard_negatives(labels, emb, margin):
    dist = pairwise_distances(emb).detach()
    triplets = []
    for a in range(len(labels)):
        pos_idx = [p for p in range(len(labels)) if labels[p] == labels[a] and p != a]
        neg_idx = (labels != labels[a]).nonzero().flatten()
        for p in pos_idx:
            d_ap = dist[a, p]
            cand = neg_idx[(dist[a, neg_idx] > d_ap) & (dist[a, neg_idx] < d_ap + margin)]
            if len(cand) > 0:
                triplets.append((a, p, cand[torch.randint(len(cand), (1,))].item()))
    return triplets


def pk_sampler(features, labels, p, k):
    ids = torch.randperm(NUM_IDENTITIES)[:p]
    idx = []
    for i in ids.tolist():
        pool = (labels == i).nonzero().flatten()
        idx.append(pool[torch.randperm(len(pool))[:k]])
    idx = torch.cat(idx)
    return features[idx], labels[idx]


centers = torch.randn(NUM_IDENTITIES, 32) * 2
all_labels = torch.arange(NUM_IDENTITIES).repeat_interleave(20)
all_feats = centers[all_labels] + torch.randn(len(all_labels), 32)

net = EmbeddingNet()
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
compiled_net = torch.compile(net, backend="eager")
loss_fn = torch.compile(batch_hard_triplet_loss, backend="eager")

for step in range(10):
    x, y = pk_sampler(all_feats, all_labels, p=6, k=SAMPLES_PER_ID)
    emb = compiled_net(x)
    loss, active = loss_fn(y, emb, MARGIN)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 3 == 0:
        n_semi = len(semi_hard_negatives(y, emb, MARGIN))
        print(f"step {step}: loss={loss.item():.4f} active={active.item():.2f} semi-hard triplets={n_semi}")

with torch.no_grad():
    emb = compiled_net(all_feats)
    d = pairwise_distances(emb)
    d.fill_diagonal_(float("inf"))
    nn_label = all_labels[d.argmin(dim=1)]
print(f"recall@1: {(nn_label == all_labels).float().mean().item():.3f}")
