import random
import time
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F


def random_graph(num_nodes, avg_degree, num_feats, num_classes):
    num_edges = num_nodes * avg_degree
    src = torch.randint(0, num_nodes, (num_edges,))
    dst = torch.randint(0, num_nodes, (num_edges,))
    mask = src != dst
    edge_index = torch.stack([src[mask], dst[mask]])
    labels = torch.randint(0, num_classes, (num_nodes,))
    centers = torch.randn(num_classes, num_feats)
    x = centers[labels] + 0.8 * torch.randn(num_nodes, num_feats)
    return {"x": x, "edge_index": edge_index, "y": labels}


def add_self_loops(edge_index, n):
    loops = torch.arange(n).repeat(2, 1)
    return torch.cat([edge_index, loops], dim=1)


def degree(index, n):
    return torch.zeros(n).index_add_(0, index, torch.ones(index.numel()))


class GraphConv(nn.Module):
    def __init__(self, in_dim, out_dim, aggr="mean"):
        super().__init__()
        self.lin = nn.Linear(in_dim, out_dim)
        self.root = nn.Linear(in_dim, out_dim, bias=False)
        self.aggr = aggr

    def forward(self, x, edge_index):
        src, dst = edge_index
        msg = self.lin(x)[src]
        n = x.shape[0]
        if self.aggr == "sum":
            out = torch.zeros(n, msg.shape[1]).index_add_(0, dst, msg)
        elif self.aggr == "max":
            out = torch.full((n, msg.shape[1]), -1e9).scatter_reduce(
                0, dst.unsqueeze(-1).expand_as(msg), msg, reduce="amax", include_self=True)
            out = torch.where(out < -1e8, torch.zeros_like(out), out)
        else:
            deg = degree(dst, n).clamp(min=1)
            out = torch.zeros(n, msg.shape[1]).index_add_(0, dst, msg) / deg.unsqueeze(-1)
        return out + self.root(x)


class GNN(nn.Module):
    def __init__(self, in_dim, hidden, out_dim, layers=3, aggr="mean", dropout=0.2):
        super().__init__()
        dims = [in_dim] + [hidden] * (layers - 1) + [out_dim]
        self.convs = nn.ModuleList(GraphConv(a, b, aggr) for a, b in zip(dims[:-1], dims[1:]))
        self.norms = nn.ModuleList(nn.LayerNorm(d) for d in dims[1:-1])
        self.dropout = dropout

    def forward(self, x, edge_index):
        for i, conv in enumerate(self.convs):
            x = conv(x, edge_index)
            if i < len(self.norms):
                x = F.dropout(F.relu(self.norms[i](x)), self.dropout, self.training)
        return x


class Trainer:
    def __init__(self, model, graph, lr=0.01):
        self.model = model
        self.graph = graph
        self.opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=5e-4)
        self.history = defaultdict(list)
        self.step = torch.compile(self._step)

    def _step(self, x, edge_index, y, train_mask):
        self.model.train()
        out = self.model(x, edge_index)
        loss = F.cross_entropy(out[train_mask], y[train_mask])
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.detach()

    @torch.no_grad()
    def evaluate(self, masks):
        self.model.eval()
        g = self.graph
        pred = self.model(g["x"], g["edge_index"]).argmax(-1)
        return {k: (pred[m] == g["y"][m]).float().mean().item() for k, m in masks.items()}


if __name__ == "__main__":
    torch.manual_seed(1)
    random.seed(1)
    g = random_graph(500, 6, 16, 4)
    g["edge_index"] = add_self_loops(g["edge_index"], 500)
    perm = torch.randperm(500)
    masks = {name: torch.zeros(500, dtype=torch.bool) for name in ("train", "val", "test")}
    masks["train"][perm[:200]] = True
    masks["val"][perm[200:350]] = True
    masks["test"][perm[350:]] = True
    for aggr in ["mean", "max"]:
        model = GNN(16, 32, 4, aggr=aggr)
        trainer = Trainer(model, g)
        best = (0.0, -1)
        t0 = time.time()
        for epoch in range(40):
            loss = trainer.step(g["x"], g["edge_index"], g["y"], masks["train"])
            trainer.history["loss"].append(loss.item())
            if epoch % 10 == 9:
                accs = trainer.evaluate(masks)
                trainer.history["val"].append(accs["val"])
                if accs["val"] > best[0]:
                    best = (accs["val"], epoch)
        accs = trainer.evaluate(masks)
        print(f"[{aggr:>4}] loss {trainer.history['loss'][-1]:.3f} best val {best[0]:.3f}@{best[1]} "
              f"test {accs['test']:.3f} ({time.time() - t0:.1f}s)")
