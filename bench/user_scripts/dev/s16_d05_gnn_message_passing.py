import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(8)


def random_graph(num_nodes, num_edges, num_feats, num_classes):
    src = torch.randint(0, num_nodes, (num_edges,))
    dst = torch.randint(0, num_nodes, (num_edges,))
    keep = src != dst
    edge_index = torch.stack([src[keep], dst[keep]])
    # make undirected
    edge_index = torch.cat([edge_index, edge_index.flip(0)], dim=1)
    x = torch.randn(num_nodes, num_feats)
    y = (x[:, :num_classes]).argmax(dim=1)
    return x, edge_index, y


def add_self_loops(edge_index, num_nodes):
    loops = torch.arange(num_nodes).repeat(2, 1)
    return torch.cat([edge_index, loops], dim=1)


def gcn_norm(edge_index, num_nodes):
    row, col = edge_index
    deg = torch.zeros(num_nodes).index_add_(0, col, torch.ones(col.numel()))
    deg_inv_sqrt = deg.pow(-0.5)
    deg_inv_sqrt[torch.isinf(deg_inv_sqrt)] = 0
    return deg_inv_sqrt[row] * deg_inv_sqrt[col]


class GCNLayer(nn.Module):
    def __init__(self, in_dim, out_dim):
        super().__init__()
        self.lin = nn.Linear(in_dim, out_dim, bias=False)
        self.bias = nn.Parameter(torch.zeros(out_dim))

    def forward(self, x, edge_index, norm):
        h = self.lin(x)
        row, col = edge_index
        msgs = h[row] * norm.unsqueeze(-1)
        out = torch.zeros_like(h).index_add_(0, col, msgs)
        return out + self.bias


class GATLikeLayer(nn.Module):
    def __init__(self, in_dim, out_dim):
        super().__init__()
        self.lin = nn.Linear(in_dim, out_dim, bias=False)
        self.att = nn.Parameter(torch.randn(2 * out_dim) * 0.1)

    def forward(self, x, edge_index, norm=None):
        h = self.lin(x)
        row, col = edge_index
        e = F.leaky_relu(torch.cat([h[row], h[col]], dim=-1) @ self.att, 0.2)
        e = e - e.max()
        w = e.exp()
        denom = torch.zeros(x.size(0)).scatter_add_(0, col, w)
        alpha = w / (denom[col] + 1e-16)
        return torch.zeros_like(h).index_add_(0, col, h[row] * alpha.unsqueeze(-1))


LAYERS = {"gcn": GCNLayer, "gat": GATLikeLayer}


class GNN(nn.Module):
    def __init__(self, kind, in_dim, hidden, out_dim, dropout=0.3):
        super().__init__()
        layer_cls = LAYERS[kind]
        self.convs = nn.ModuleList([layer_cls(in_dim, hidden), layer_cls(hidden, out_dim)])
        self.dropout = dropout

    def forward(self, x, edge_index, norm):
        for i, conv in enumerate(self.convs):
            x = conv(x, edge_index, norm)
            if i < len(self.convs) - 1:
                x = F.relu(x)
                x = F.dropout(x, p=self.dropout, training=self.training)
        return x


x, edge_index, y = random_graph(100, 400, 12, 3)
edge_index = add_self_loops(edge_index, x.size(0))
norm = gcn_norm(edge_index, x.size(0))
train_mask = torch.rand(x.size(0)) < 0.6
test_mask = ~train_mask

for kind in LAYERS:
    torch.manual_seed(0)
    model = GNN(kind, 12, 16, 3)
    opt = torch.optim.Adam(model.parameters(), lr=0.02, weight_decay=5e-4)
    cmodel = torch.compile(model, backend="eager")
    for epoch in range(10):
        model.train()
        out = cmodel(x, edge_index, norm)
        loss = F.cross_entropy(out[train_mask], y[train_mask])
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        pred = cmodel(x, edge_index, norm).argmax(dim=1)
    acc = (pred[test_mask] == y[test_mask]).sum().item() / int(test_mask.sum())
    print(f"{kind}: final train loss {loss.item():.4f}, test acc {acc:.3f}")
