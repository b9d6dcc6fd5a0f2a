import torch


@torch.compile
def sparse_mm(adj, x):
    a = adj.to_sparse()
    return torch.sparse.mm(a, x)


sparse_mm(torch.eye(4), torch.randn(4, 3))
