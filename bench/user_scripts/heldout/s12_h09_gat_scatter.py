import torch
import torch.nn as nn
import torch.nn.functional as F


def random_graph(n_nodes, n_edges, seed=0):
    g = torch.Generator().manual_seed(seed)
    src = torch.randint(0, n_nodes, (n_edges,), generator=g)
    dst = torch.randint(0, n_nodes, (n_edges,), generator=g)
    self_loops = torch.arange(n_nodes)
    edge_index = torch.stack([torch.cat([src, self_loops]), torch.cat([dst, self_loops])])
    return edge_index


def scatter_softmax(scores, index, num_nodes):
    # scores: (E, H)
    max_per_node = torch.full((num_nodes, scores.shape[1]), float("-inf"))
    max_per_node = max_per_node.scatter_reduce(0, index[:, None].expand_as(scores), scores, reduce="amax")
    exp = (scores - max_per_node[index]).exp()
    denom = torch.zeros(num_nodes, scores.shape[1]).index_add_(0, index, exp)
    return exp / (denom[index] + 1e-16)


class GATLayer(nn.Module):
    def __init__(self, in_dim, out_dim, heads=4, concat=True):
        super().__init__()
        self.heads, self.out_dim, self.concat = heads, out_dim, concat
        self.lin = nn.Linear(in_dim, heads * out_dim, bias=False)
        self.att_src = nn.Parameter(torch.randn(1, heads, out_dim) * 0.1)
        self.att_dst = nn.Parameter(torch.randn(1, heads, out_dim) * 0.1)

    def forward(self, x, edge_index):
        n = x.shape[0]
        h = self.lin(x).view(n, self.heads, self.out_dim)
        src, dst = edge_index
        a_src = (h * self.att_src).sum(-1)
        a_dst = (h * self.att_dst).sum(-1)
        e = F.leaky_relu(a_src[src] + a_dst[dst], 0.2)
        alpha = scatter_softmax(e, dst, n)
        alpha = F.dropout(alpha, p=0.1, training=self.training)
        msg = h[src] * alpha.unsqueeze(-1)
        out = torch.zeros_like(h).index_add_(0, dst, msg)
        return out.reshape(n, -1) if self.concat else out.mean(1)


class GAT(nn.Module):
    def __init__(self, in_dim, hidden, n_classes):
        super().__init__()
        self.l1 = GATLayer(in_dim, hidden, heads=4)
        self.l2 = GATLayer(hidden * 4, n_classes, heads=1, concat=False)

    def forward(self, x, edge_index):
        x = F.elu(self.l1(x, edge_index))
        return self.l2(x, edge_index)


n_nodes, n_feat, n_classes = 30, 12, 3
edge_index = random_graph(n_nodes, 90)
x = torch.randn(n_nodes, n_feat)
labels = torch.randint(0, n_classes, (n_nodes,))
train_mask = torch.rand(n_nodes) < 0.6

model = GAT(n_feat, 8, n_classes)
cmodel = torch.compile(model)
opt = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)

best_acc = 0.0
for epoch in range(5):
    model.train()
    logits = cmodel(x, edge_index)
    loss = F.cross_entropy(logits[train_mask], labels[train_mask])
    opt.zero_grad()
    loss.backward()
    opt.step()
    model.eval()
    with torch.no_grad():
        pred = cmodel(x, edge_index).argmax(-1)
    val_acc = (pred[~train_mask] == labels[~train_mask]).float().mean().item()
    best_acc = max(best_acc, val_acc)
    print(f"epoch {epoch:02d} loss {loss.item():.4f} val_acc {val_acc:.3f}")
print("best val acc", best_acc)
