"""torch-geometric convolutions and models for the corpus: a random graph of 12 nodes, 40 edges, 8 features."""

from __future__ import annotations

from bench.corpus import Case, function_case

NODES, EDGES, FEATURES = 12, 40, 8


def _graph(device, edge_dim: int = 0):
    import torch

    x = torch.randn(NODES, FEATURES, device=device)
    edge_index = torch.randint(0, NODES, (2, EDGES), device=device)
    kwargs = {"edge_attr": torch.randn(EDGES, edge_dim, device=device)} if edge_dim else {}
    return (x, edge_index), kwargs


def _conv(cls: str, *args, edge_dim: int = 0, **kwargs):
    if edge_dim:
        kwargs["edge_dim"] = edge_dim

    def factory(device):
        from torch_geometric import nn

        return getattr(nn, cls)(*args, **kwargs), *_graph(device, edge_dim)

    return factory


def _model(cls: str, **kwargs):
    def factory(device):
        from torch_geometric.nn import models

        return getattr(models, cls)(**kwargs), *_graph(device)

    return factory


def _gin(device):
    import torch
    from torch_geometric.nn import GINConv

    mlp = torch.nn.Sequential(torch.nn.Linear(FEATURES, 16), torch.nn.ReLU(), torch.nn.Linear(16, 16))
    return GINConv(mlp), *_graph(device)


def _edge_conv(device):
    import torch
    from torch_geometric.nn import EdgeConv

    mlp = torch.nn.Sequential(torch.nn.Linear(2 * FEATURES, 16), torch.nn.ReLU())
    return EdgeConv(mlp), *_graph(device)


def _gine(device):
    import torch
    from torch_geometric.nn import GINEConv

    mlp = torch.nn.Sequential(torch.nn.Linear(FEATURES, 16), torch.nn.ReLU())
    return GINEConv(mlp, edge_dim=4), *_graph(device, 4)


def _pna(device):
    import torch
    from torch_geometric.nn import PNAConv

    conv = PNAConv(FEATURES, 16, aggregators=["mean", "max"], scalers=["identity"], deg=torch.tensor([0, 2, 4, 4]))
    return conv, *_graph(device)


def _pool_inputs(device):
    import torch

    batch = torch.tensor([0] * (NODES // 2) + [1] * (NODES - NODES // 2), device=device)
    return (torch.randn(NODES, FEATURES, device=device), batch), {}


def _schnet(device):
    import torch
    from torch_geometric.nn.models import SchNet

    z = torch.randint(1, 10, (NODES,), device=device)
    pos = torch.randn(NODES, 3, device=device)
    batch = torch.zeros(NODES, dtype=torch.long, device=device)
    model = SchNet(hidden_channels=16, num_filters=16, num_interactions=2, num_gaussians=10, cutoff=5.0,
                   interaction_graph=_FullGraph())
    return model, (z, pos, batch), {}


class _FullGraph(__import__("torch").nn.Module):
    """SchNet's interaction graph without torch-cluster: every pair of distinct nodes."""

    def forward(self, pos, batch):
        import torch

        n = pos.size(0)
        row, col = torch.meshgrid(torch.arange(n, device=pos.device), torch.arange(n, device=pos.device),
                                  indexing="ij")
        keep = row != col
        edge_index = torch.stack([row[keep], col[keep]])
        weight = (pos[edge_index[0]] - pos[edge_index[1]]).norm(dim=-1)
        return edge_index, weight


CASES: list[Case] = [
    Case("torch_geometric", "GCNConv", _conv("GCNConv", FEATURES, 16)),
    Case("torch_geometric", "GATConv", _conv("GATConv", FEATURES, 8, heads=2)),
    Case("torch_geometric", "GATv2Conv", _conv("GATv2Conv", FEATURES, 8, heads=2, edge_dim=4)),
    Case("torch_geometric", "SAGEConv", _conv("SAGEConv", FEATURES, 16)),
    Case("torch_geometric", "GraphConv", _conv("GraphConv", FEATURES, 16)),
    Case("torch_geometric", "TransformerConv", _conv("TransformerConv", FEATURES, 8, heads=2)),
    Case("torch_geometric", "ChebConv", _conv("ChebConv", FEATURES, 16, K=2)),
    Case("torch_geometric", "GINConv", _gin),
    Case("torch_geometric", "EdgeConv", _edge_conv),
    Case("torch_geometric", "TAGConv", _conv("TAGConv", FEATURES, 16)),
    Case("torch_geometric", "SGConv", _conv("SGConv", FEATURES, 16, K=2)),
    Case("torch_geometric", "ARMAConv", _conv("ARMAConv", FEATURES, 16)),
    Case("torch_geometric", "GENConv", _conv("GENConv", FEATURES, 16)),
    Case("torch_geometric", "APPNP", _conv("APPNP", K=2, alpha=0.1)),
    Case("torch_geometric", "GCN", _model("GCN", in_channels=FEATURES, hidden_channels=16, num_layers=2)),
    Case("torch_geometric", "GAT", _model("GAT", in_channels=FEATURES, hidden_channels=16, num_layers=2, heads=2)),
    Case("torch_geometric", "GraphSAGE", _model("GraphSAGE", in_channels=FEATURES, hidden_channels=16,
                                                num_layers=2)),
    Case("torch_geometric", "GIN", _model("GIN", in_channels=FEATURES, hidden_channels=16, num_layers=2)),
    Case("torch_geometric", "EdgeCNN", _model("EdgeCNN", in_channels=FEATURES, hidden_channels=16,
                                                       num_layers=2)),
    Case("torch_geometric", "SchNet", _schnet),
    function_case("torch_geometric", "torch_geometric.nn.global_mean_pool", _pool_inputs),
    function_case("torch_geometric", "torch_geometric.utils.softmax", _pool_inputs),
    Case("torch_geometric", "ResGatedGraphConv", _conv("ResGatedGraphConv", FEATURES, 16)),
    Case("torch_geometric", "LEConv", _conv("LEConv", FEATURES, 16)),
    Case("torch_geometric", "GeneralConv", _conv("GeneralConv", FEATURES, 16)),
    Case("torch_geometric", "SuperGATConv", _conv("SuperGATConv", FEATURES, 8, heads=2)),
    Case("torch_geometric", "GatedGraphConv", _conv("GatedGraphConv", 16, num_layers=2)),
    Case("torch_geometric", "FeaStConv", _conv("FeaStConv", FEATURES, 16, heads=2)),
    Case("torch_geometric", "PNAConv", _pna),
    Case("torch_geometric", "GINEConv", _gine),
    function_case("torch_geometric", "torch_geometric.nn.global_max_pool", _pool_inputs),
    function_case("torch_geometric", "torch_geometric.utils.to_dense_batch", _pool_inputs),
]
