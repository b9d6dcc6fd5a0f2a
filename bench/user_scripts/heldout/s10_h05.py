"""Two-layer message-passing GNN on a random graph using scatter/gather ops."""
import torch
import torch.nn as nn

torch.manual_seed(5)


def random_graph(num_nodes, num_edges):
    src = torch.randint(0, num_nodes, (num_edges,))
    dst = torch.randint(0, num_nodes, (num_edges,))
    keep = src != dst
    return torch.stack([src[keep], dst[keep]], dim=0)


def add_self_loops(edge_index, num_nodes):
    loops = torch.arange(num_nodes).unsqueeze(0).repeat(2, 1)
    return torch.cat([edge_index, loops], dim=1)


def degree(index, num_nodes):
    out = torch.zeros(num_nodes)
    return out.scatter_add(0, index, torch.ones_like(index, dtype=torch.float32))


def scatter_mean(src, index, num_nodes):
    dim = src.shape[1]
    summed = torch.zeros(num_nodes, dim).index_add(0, index, src)
    cnt = degree(index, num_nodes).clamp(min=1).unsqueeze(1)
    return summed / cnt


class GraphConv(nn.Module):
    def __init__(self, in_dim, out_dim, aggr="mean"):
        super().__init__()
        self.lin_msg = nn.Linear(in_dim, out_dim)
        self.lin_self = nn.Linear(in_dim, out_dim, bias=False)
        self.aggr = aggr

    def forward(self, x, edge_index):
        src, dst = edge_index[0], edge_index[1]
        msg = self.lin_msg(x[src])
        n = x.shape[0]
        if self.aggr == "mean":
            agg = scatter_mean(msg, dst, n)
        else:
            deg = degree(dst, n)
            norm = deg[src].rsqrt() * deg[dst].rsqrt()
            agg = torch.zeros(n, msg.shape[1]).index_add(0, dst, msg * norm.unsqueeze(1))
        return agg + self.lin_self(x)


class GNN(nn.Module):
    def __init__(self, in_dim, hidden, out_dim):
        super().__init__()
        self.conv1 = GraphConv(in_dim, hidden, aggr="mean")
        self.conv2 = GraphConv(hidden, out_dim, aggr="sym")
        self.act = nn.ReLU()

    def forward(self, x, edge_index):
        edge_index = add_self_loops(edge_index, x.shape[0])
        h = self.act(self.conv1(x, edge_index))
        isolated = degree(edge_index[1], x.shape[0]) <= 1
        if isolated.any():
            h = h.clone()
            h[isolated] = 0.0
        return self.conv2(h, edge_index)


def graph_readout(h, batch_vec, num_graphs):
    return scatter_mean(h, batch_vec, num_graphs)


if __name__ == "__main__":
    num_nodes = 30
    model = GNN(8, 16, 4)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    compiled = torch.compile(model, backend="eager")
    batch_vec = torch.arange(num_nodes) // 10
    targets = torch.randn(3, 4)
    for it in range(4):
        edge_index = random_graph(num_nodes, 60)
        x = torch.randn(num_nodes, 8)
        out = compiled(x, edge_index)
        pooled = graph_readout(out, batch_vec, 3)
        loss = ((pooled - targets) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"iter {it}: edges={edge_index.shape[1]} loss={loss.item():.4f}")
