import torch


def knn(x, k):
    d = torch.cdist(x, x)
    d = d + torch.eye(x.shape[0]) * 1e9
    return d.topk(k, largest=False).indices


def edge_list(idx):
    n, k = idx.shape
    src = torch.arange(n).repeat_interleave(k)
    return torch.stack([src, idx.reshape(-1)])


def degree(edges, n):
    deg = torch.zeros(n, dtype=torch.long)
    deg.scatter_add_(0, edges[0], torch.ones_like(edges[0]))
    return deg


@torch.compile
def build_graph(points, k=4):
    idx = knn(points, k)
    edges = edge_list(idx)
    deg = degree(edges, points.shape[0])
    isolated = (deg == 0).nonzero().flatten().tolist()
    return edges, isolated


build_graph(torch.randn(30, 3))
