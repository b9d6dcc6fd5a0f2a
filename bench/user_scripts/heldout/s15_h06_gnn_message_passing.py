import torch
import torch.nn as nn
import torch.nn.functional as F


def random_graph(n_nodes, n_edges, feat_dim):
    src = torch.randint(0, n_nodes, (n_edges,))
    dst = torch.randint(0, n_nodes, (n_edges,))
    keep = src != dst
    edge_index = torch.stack([src[keep], dst[keep]])
    edge_index = torch.cat([edge_index, edge_index.flip(0)], 1)
    edge_index = torch.unique(edge_index, dim=1)
    x = torch.randn(n_nodes, feat_dim)
    return x, edge_index


def degree(index, n):
    return torch.zeros(n).scatter_add_(0, index, torch.ones(index.numel()))


class GCNLayer(nn.Module):
    def __init__(self, c_in, c_out):
        super().__init__()
        self.lin = nn.Linear(c_in, c_out)

    def forward(self, x, edge_index):
        n = x.size(0)
        loops = torch.arange(n)
        src = torch.cat([edge_index[0], loops])
        dst = torch.cat([edge_index[1], loops])
        deg = degree(dst, n)
        norm = deg[src].rsqrt() * deg[dst].rsqrt()
        h = self.lin(x)
        msg = h[src] * norm[:, None]
        return torch.zeros_like(h).index_add_(0, dst, msg)


class GCN(nn.Module):
    def __init__(self, dims, dropout=0.2):
        super().__init__()
        self.layers = nn.ModuleList([GCNLayer(a, b) for a, b in zip(dims[:-1], dims[1:])])
        self.dropout = dropout

    def forward(self, x, edge_index):
        for i, layer in enumerate(self.layers):
            x = layer(x, edge_index)
            if i < len(self.layers) - 1:
                x = F.dropout(F.relu(x), self.dropout, self.training)
        return x


def split_masks(n, train_frac=0.5):
    perm = torch.randperm(n)
    train = torch.zeros(n, dtype=torch.bool)
    train[perm[: int(train_frac * n)]] = True
    return train, ~train


def main():
    torch.manual_seed(0)
    x, ei = random_graph(60, 200, 16)
    y = (x[:, :3].sum(1) > 0).long() + (x[:, 3] > 1).long()
    train_mask, test_mask = split_masks(60)
    model = GCN([16, 32, 32, 3])
    fwd = torch.compile(model, backend="eager")
    opt = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
    best = {"acc": 0.0, "epoch": -1}
    for epoch in range(8):
        model.train()
        out = fwd(x, ei)
        loss = F.cross_entropy(out[train_mask], y[train_mask])
        opt.zero_grad()
        loss.backward()
        opt.step()
        model.eval()
        with torch.no_grad():
            pred = fwd(x, ei).argmax(1)
            acc = (pred[test_mask] == y[test_mask]).float().mean().item()
        if acc > best["acc"]:
            best.update(acc=acc, epoch=epoch)
        print(f"epoch {epoch:02d} loss {loss.item():.4f} test_acc {acc:.3f}")
    print("best", best)


if __name__ == "__main__":
    main()
