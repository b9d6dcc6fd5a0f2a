import random
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F


def random_graph(num_nodes, avg_degree=4, seed=0):
    g = torch.Generator().manual_seed(seed)
    num_edges = num_nodes * avg_degree
    src = torch.randint(0, num_nodes, (num_edges,), generator=g)
    dst = torch.randint(0, num_nodes, (num_edges,), generator=g)
    keep = src != dst
    return torch.stack([src[keep], dst[keep]])


class NeighborSampler:
    def __init__(self, edge_index, num_nodes, fanout=3):
        self.num_nodes = num_nodes
        self.fanout = fanout
        self.adj = defaultdict(list)
        for s, d in edge_index.t().tolist():
            self.adj[d].append(s)

    def sample(self, seeds):
        """Return a subgraph: node id list (seeds first) and local edge_index."""
        nodes = list(seeds)
        node_pos = {n: i for i, n in enumerate(nodes)}
        src_local, dst_local = [], []
        for n in seeds:
            neigh = self.adj.get(n, [])
            if len(neigh) > self.fanout:
                neigh = random.sample(neigh, self.fanout)
            for m in neigh:
                if m not in node_pos:
                    node_pos[m] = len(nodes)
                    nodes.append(m)
                src_local.append(node_pos[m])
                dst_local.append(node_pos[n])
        edge_index = torch.tensor([src_local, dst_local], dtype=torch.long)
        return torch.tensor(nodes, dtype=torch.long), edge_index


class SAGELayer(nn.Module):
    def __init__(self, in_dim, out_dim, aggr="mean"):
        super().__init__()
        self.lin_self = nn.Linear(in_dim, out_dim)
        self.lin_neigh = nn.Linear(in_dim, out_dim, bias=False)
        self.aggr = aggr

    def forward(self, x, edge_index):
        src, dst = edge_index[0], edge_index[1]
        msgs = x[src]
        agg = torch.zeros(x.size(0), x.size(1), dtype=x.dtype)
        agg = agg.index_add(0, dst, msgs)
        if self.aggr == "mean":
            deg = torch.zeros(x.size(0), dtype=x.dtype).scatter_add_(
                0, dst, torch.ones_like(dst, dtype=x.dtype))
            agg = agg / deg.clamp(min=1).unsqueeze(-1)
        return self.lin_self(x) + self.lin_neigh(agg)


class GraphSAGE(nn.Module):
    def __init__(self, in_dim, hidden, num_classes, num_layers=2, dropout=0.2):
        super().__init__()
        dims = [in_dim] + [hidden] * (num_layers - 1) + [num_classes]
        self.layers = nn.ModuleList(SAGELayer(dims[i], dims[i + 1]) for i in range(num_layers))
        self.dropout = dropout

    def forward(self, x, edge_index):
        for i, layer in enumerate(self.layers):
            x = layer(x, edge_index)
            if i < len(self.layers) - 1:
                x = F.relu(x)
                x = F.dropout(x, self.dropout, self.training)
        return x


def main():
    random.seed(0)
    torch.manual_seed(0)
    num_nodes, feat_dim, num_classes = 100, 16, 4
    edge_index = random_graph(num_nodes)
    features = torch.randn(num_nodes, feat_dim)
    labels = torch.randint(0, num_classes, (num_nodes,))

    sampler = NeighborSampler(edge_index, num_nodes, fanout=3)
    model = GraphSAGE(feat_dim, 32, num_classes)
    cmodel = torch.compile(model, backend="eager")
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)

    all_nodes = list(range(num_nodes))
    for step in range(3):
        seeds = random.sample(all_nodes, 10)
        nodes, sub_edges = sampler.sample(seeds)
        out = cmodel(features[nodes], sub_edges)
        loss = F.cross_entropy(out[: len(seeds)], labels[torch.tensor(seeds)])
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step}: subgraph nodes={nodes.numel()} edges={sub_edges.shape[1]} "
              f"loss={loss.item():.4f}")

    cmodel.eval()
    with torch.no_grad():
        full = cmodel(features, edge_index)
        acc = (full.argmax(-1) == labels).float().mean().item()
    print(f"full-graph acc: {acc:.3f}")


if __name__ == "__main__":
    main()
