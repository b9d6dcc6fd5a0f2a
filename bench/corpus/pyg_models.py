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


def _norm(cls: str, *args, **kwargs):
    """A normalization layer called as `norm(x, batch)` on two graphs of 6 nodes."""
    def factory(device):
        from torch_geometric import nn

        return getattr(nn, cls)(*args, **kwargs), (__import__("torch").randn(NODES, FEATURES, device=device),), {
            "batch": _batch(device)}

    return factory


def _aggr(cls: str, *args, **kwargs):
    """An aggregation module called as `aggr(x, index)`: 12 nodes into two groups (sorted index)."""
    def factory(device):
        from torch_geometric.nn import aggr

        return getattr(aggr, cls)(*args, **kwargs), (__import__("torch").randn(NODES, FEATURES, device=device),
                                                     _batch(device)), {}

    return factory


def _signed(device):
    import torch
    from torch_geometric.nn import SignedConv

    (x, edge_index), _ = _graph(device)
    return SignedConv(FEATURES, 8, first_aggr=True), (x, edge_index[:, :20], edge_index[:, 20:]), {}


def _wl(device):
    import torch
    from torch_geometric.nn import WLConv

    return WLConv(), (torch.randint(0, 3, (NODES,), device=device), _graph(device)[0][1]), {}


def _fast_rgcn(device):
    import torch
    from torch_geometric.nn import FastRGCNConv

    (x, edge_index), _ = _graph(device)
    return FastRGCNConv(FEATURES, 16, num_relations=3), (x, edge_index, torch.randint(0, 3, (EDGES,), device=device)), {}


def _dna(device):
    import torch
    from torch_geometric.nn import DNAConv

    (x, edge_index), _ = _graph(device)
    return DNAConv(FEATURES, heads=2, groups=2), (x.unsqueeze(1).repeat(1, 3, 1), edge_index), {}


def _gps(device):
    import torch
    from torch_geometric.nn import GINConv, GPSConv

    mlp = torch.nn.Sequential(torch.nn.Linear(FEATURES, FEATURES), torch.nn.ReLU())
    (x, edge_index), _ = _graph(device)
    return GPSConv(FEATURES, GINConv(mlp), heads=2), (x, edge_index), {"batch": _batch(device)}


def _degree_scaler(device):
    import torch
    from torch_geometric.nn.aggr import DegreeScalerAggregation

    return DegreeScalerAggregation("mean", "amplification", deg=torch.tensor([0, 2, 4, 4])), (
        torch.randn(NODES, FEATURES, device=device), _batch(device)), {}


def _mlp_model(device):
    from torch_geometric.nn.models import MLP

    return MLP([FEATURES, 16, 4], norm="batch_norm", dropout=0.1), (
        __import__("torch").randn(NODES, FEATURES, device=device),), {"batch": _batch(device)}


def _label_propagation(device):
    import torch
    from torch_geometric.nn.models import LabelPropagation

    (_, edge_index), _ = _graph(device)
    y = torch.randint(0, 3, (NODES,), device=device)
    mask = torch.arange(NODES, device=device) < 6
    return LabelPropagation(num_layers=2, alpha=0.9), (y, edge_index, mask), {}


def _linkx(device):
    from torch_geometric.nn.models import LINKX

    (x, edge_index), _ = _graph(device)
    return LINKX(NODES, FEATURES, 16, 4, num_layers=2), (x, edge_index), {}


def _rect(device):
    from torch_geometric.nn.models import RECT_L

    (x, edge_index), _ = _graph(device)
    return RECT_L(FEATURES, 16), (x, edge_index), {}


def _pmlp(device):
    from torch_geometric.nn.models import PMLP

    (x, edge_index), _ = _graph(device)
    return PMLP(FEATURES, 16, 4, num_layers=2), (x, edge_index), {}


def _dense_gcn(device):
    import torch
    from torch_geometric.nn import DenseGCNConv

    adj = (torch.rand(2, 6, 6, device=device) > 0.5).float()
    return DenseGCNConv(FEATURES, 16), (torch.randn(2, 6, FEATURES, device=device), adj), {}


def _dmon(device):
    import torch
    from torch_geometric.nn import DMoNPooling

    adj = (torch.rand(2, 6, 6, device=device) > 0.5).float()
    return DMoNPooling([FEATURES, 8], 3), (torch.randn(2, 6, FEATURES, device=device), adj), {}


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


def _batch(device):
    import torch

    return torch.tensor([0] * (NODES // 2) + [1] * (NODES - NODES // 2), device=device)


def _edge_attr_conv(cls: str, *args, **kwargs):
    """A convolution whose constructor takes no ``edge_dim`` but whose forward takes 4-wide ``edge_attr``."""

    def factory(device):
        from torch_geometric import nn

        return getattr(nn, cls)(*args, **kwargs), *_graph(device, 4)

    return factory


def _fa(device):
    import torch
    from torch_geometric.nn import FAConv

    (x, edge_index), _ = _graph(device)
    return FAConv(FEATURES), (x, torch.randn_like(x), edge_index), {}


def _gcn2(device):
    import torch
    from torch_geometric.nn import GCN2Conv

    (x, edge_index), _ = _graph(device)
    return GCN2Conv(FEATURES, alpha=0.1, theta=0.5, layer=1), (x, torch.randn_like(x), edge_index), {}


def _point_net(device):
    import torch
    from torch_geometric.nn import PointNetConv

    local = torch.nn.Sequential(torch.nn.Linear(FEATURES + 3, 16), torch.nn.ReLU())
    (x, edge_index), _ = _graph(device)
    return PointNetConv(local, torch.nn.Linear(16, 16)), (x, torch.randn(NODES, 3, device=device), edge_index), {}


def _nnconv(device):
    import torch
    from torch_geometric.nn import NNConv

    net = torch.nn.Sequential(torch.nn.Linear(4, 32), torch.nn.ReLU(), torch.nn.Linear(32, FEATURES * 16))
    return NNConv(FEATURES, 16, net, aggr="mean"), *_graph(device, 4)


def _rgcn(device):
    import torch
    from torch_geometric.nn import RGCNConv

    (x, edge_index), _ = _graph(device)
    return RGCNConv(FEATURES, 16, num_relations=3), (x, edge_index, torch.randint(0, 3, (EDGES,), device=device)), {}


def _sequential(device):
    """``torch_geometric.nn.Sequential``: its forward is generated from the layer signatures."""
    import torch
    from torch_geometric.nn import GCNConv, Sequential

    model = Sequential("x, edge_index", [(GCNConv(FEATURES, 16), "x, edge_index -> x"), torch.nn.ReLU(inplace=True),
                                         (GCNConv(16, 16), "x, edge_index -> x")])
    return model, *_graph(device)


def _pool(cls: str, *args, **kwargs):
    """A pooling layer on the graph of two batched graphs: ``(x, edge_index, batch=batch)``."""

    def factory(device):
        from torch_geometric import nn

        (x, edge_index), _ = _graph(device)
        return getattr(nn, cls)(*args, **kwargs), (x, edge_index), {"batch": _batch(device)}

    return factory


def _readout(device):
    """Global attention readout (``AttentionalAggregation``) over two batched graphs."""
    import torch
    from torch_geometric.nn import AttentionalAggregation

    gate = torch.nn.Sequential(torch.nn.Linear(FEATURES, 1))
    return AttentionalAggregation(gate, torch.nn.Linear(FEATURES, 16)), (torch.randn(NODES, FEATURES, device=device),
                                                                         _batch(device)), {}


def _set2set(device):
    import torch
    from torch_geometric.nn import Set2Set

    return Set2Set(FEATURES, processing_steps=2), (torch.randn(NODES, FEATURES, device=device), _batch(device)), {}


def _edge_index_input(device):
    import torch

    return (torch.randint(0, NODES, (2, EDGES), device=device),), {}


def _dropout_edge_input(device):
    import torch

    return (torch.randint(0, NODES, (2, EDGES), device=device),), {"p": 0.3, "training": True}


def _scatter_input(device):
    import torch

    return (torch.randn(EDGES, FEATURES, device=device), torch.randint(0, NODES, (EDGES,), device=device)), {
        "dim": 0, "dim_size": NODES, "reduce": "max"}


def _degree_input(device):
    import torch

    return (torch.randint(0, NODES, (EDGES,), device=device), NODES), {}


CASES += [
    Case("torch_geometric", "GCN2Conv", _gcn2),
    Case("torch_geometric", "SAGEConv_max", _conv("SAGEConv", FEATURES, 16, aggr="max")),
    Case("torch_geometric", "SAGEConv_multi_aggr", _conv("SAGEConv", FEATURES, 16, aggr=["mean", "max", "std"])),
    Case("torch_geometric", "PointNetConv", _point_net),
    Case("torch_geometric", "NNConv", _nnconv),
    Case("torch_geometric", "GMMConv", _edge_attr_conv("GMMConv", FEATURES, 16, dim=4, kernel_size=2)),
    Case("torch_geometric", "CGConv", _edge_attr_conv("CGConv", FEATURES, dim=4)),
    Case("torch_geometric", "RGCNConv", _rgcn),
    Case("torch_geometric", "FiLMConv", _conv("FiLMConv", FEATURES, 16)),
    Case("torch_geometric", "MFConv", _conv("MFConv", FEATURES, 16, max_degree=4)),
    Case("torch_geometric", "ClusterGCNConv", _conv("ClusterGCNConv", FEATURES, 16)),
    Case("torch_geometric", "EGConv", _conv("EGConv", FEATURES, 16, aggregators=["sum", "max"], num_heads=2,
                                            num_bases=2)),
    Case("torch_geometric", "FAConv", _fa),
    Case("torch_geometric", "MixHopConv", _conv("MixHopConv", FEATURES, 8, powers=[0, 1, 2])),
    Case("torch_geometric", "TransformerConv_edge_beta", _conv("TransformerConv", FEATURES, 8, heads=2, beta=True,
                                                               edge_dim=4)),
    Case("torch_geometric", "Sequential", _sequential),
    Case("torch_geometric", "TopKPooling", _pool("TopKPooling", FEATURES, ratio=0.5)),
    Case("torch_geometric", "SAGPooling", _pool("SAGPooling", FEATURES, ratio=0.5)),
    Case("torch_geometric", "ASAPooling", _pool("ASAPooling", FEATURES, ratio=0.5)),
    Case("torch_geometric", "AttentionalAggregation", _readout),
    Case("torch_geometric", "Set2Set", _set2set),
    Case("torch_geometric", "GAT_v2_jk", _model("GAT", in_channels=FEATURES, hidden_channels=16, num_layers=2,
                                                heads=2, v2=True, jk="cat")),
    Case("torch_geometric", "PNA", _model("PNA", in_channels=FEATURES, hidden_channels=16, num_layers=2,
                                          aggregators=["mean", "max"], scalers=["identity", "amplification"],
                                          deg=__import__("torch").tensor([0, 2, 4, 4]))),
    Case("torch_geometric", "GraphUNet", _model("GraphUNet", in_channels=FEATURES, hidden_channels=16,
                                                out_channels=4, depth=2)),
    function_case("torch_geometric", "torch_geometric.utils.dropout_edge", _dropout_edge_input),
    function_case("torch_geometric", "torch_geometric.utils.to_undirected", _edge_index_input),
    function_case("torch_geometric", "torch_geometric.utils.add_self_loops", _edge_index_input),
    function_case("torch_geometric", "torch_geometric.utils.scatter", _scatter_input),
    function_case("torch_geometric", "torch_geometric.utils.degree", _degree_input),
]


def _dir_gnn(device):
    from torch_geometric.nn import DirGNNConv, GCNConv

    return DirGNNConv(GCNConv(FEATURES, 16), alpha=0.5), *_graph(device)


def _antisymmetric(device):
    from torch_geometric.nn import AntiSymmetricConv

    return AntiSymmetricConv(FEATURES, num_iters=2), *_graph(device)


def _point_transformer(device):
    import torch
    from torch_geometric.nn import PointTransformerConv

    (x, edge_index), _ = _graph(device)
    return PointTransformerConv(FEATURES, 16), (x, torch.randn(NODES, 3, device=device), edge_index), {}


def _rgat(device):
    import torch
    from torch_geometric.nn import RGATConv

    (x, edge_index), _ = _graph(device)
    return RGATConv(FEATURES, 8, num_relations=3), (x, edge_index, torch.randint(0, 3, (EDGES,), device=device)), {}


def _deep_gcn(device):
    import torch
    from torch_geometric.nn import DeepGCNLayer, GENConv

    layer = DeepGCNLayer(GENConv(FEATURES, FEATURES), torch.nn.LayerNorm(FEATURES), torch.nn.ReLU(), block="res+",
                         dropout=0.1)
    return layer, *_graph(device)


def _attentive_fp(device):
    from torch_geometric.nn.models import AttentiveFP

    (x, edge_index), kw = _graph(device, 4)
    model = AttentiveFP(FEATURES, 16, 4, edge_dim=4, num_layers=2, num_timesteps=2)
    return model, (x, edge_index, kw["edge_attr"], _batch(device)), {}


def _sort_pool(device):
    import torch
    from torch_geometric.nn import SortAggregation

    return SortAggregation(k=4), (torch.randn(NODES, FEATURES, device=device), _batch(device)), {}


def _subset_input(device):
    import torch

    return (torch.tensor([0, 1, 2, 3, 4], device=device), torch.randint(0, NODES, (2, EDGES), device=device)), {
        "relabel_nodes": True}


def _dense_adj_input(device):
    import torch

    return (torch.randint(0, NODES, (2, EDGES), device=device),), {"batch": _batch(device)}


def _laplacian_input(device):
    import torch

    return (torch.randint(0, NODES, (2, EDGES), device=device),), {"normalization": "sym"}


CASES += [
    Case("torch_geometric", "HypergraphConv", _conv("HypergraphConv", FEATURES, 16)),
    Case("torch_geometric", "PDNConv", _conv("PDNConv", FEATURES, 16, hidden_channels=8, edge_dim=4)),
    Case("torch_geometric", "LGConv", _conv("LGConv")),
    Case("torch_geometric", "SimpleConv", _conv("SimpleConv", aggr="mean", combine_root="cat")),
    Case("torch_geometric", "SSGConv", _conv("SSGConv", FEATURES, 16, alpha=0.1, K=2)),
    Case("torch_geometric", "DirGNNConv", _dir_gnn),
    Case("torch_geometric", "AntiSymmetricConv", _antisymmetric),
    Case("torch_geometric", "PointTransformerConv", _point_transformer),
    Case("torch_geometric", "RGATConv", _rgat),
    Case("torch_geometric", "DeepGCNLayer", _deep_gcn),
    Case("torch_geometric", "AttentiveFP", _attentive_fp),
    Case("torch_geometric", "SortAggregation", _sort_pool),
    Case("torch_geometric", "EdgePooling", _pool("EdgePooling", FEATURES)),
    Case("torch_geometric", "MemPooling", lambda d: (__import__("torch_geometric").nn.MemPooling(FEATURES, 16, heads=2,
                                                                                                   num_clusters=3),
                                                     (__import__("torch").randn(NODES, FEATURES, device=d),),
                                                     {"batch": _batch(d)})),
    function_case("torch_geometric", "torch_geometric.utils.subgraph", _subset_input),
    function_case("torch_geometric", "torch_geometric.utils.to_dense_adj", _dense_adj_input),
    function_case("torch_geometric", "torch_geometric.utils.get_laplacian", _laplacian_input),
    function_case("torch_geometric", "torch_geometric.utils.remove_self_loops", _edge_index_input),
    function_case("torch_geometric", "torch_geometric.nn.global_add_pool", _pool_inputs),
    Case("torch_geometric", "GraphNorm", _norm("GraphNorm", FEATURES)),
    Case("torch_geometric", "PairNorm", _norm("PairNorm")),
    Case("torch_geometric", "DiffGroupNorm", lambda d: (__import__("torch_geometric").nn.DiffGroupNorm(FEATURES, 3),
                                                        (__import__("torch").randn(NODES, FEATURES, device=d),), {})),
    Case("torch_geometric", "InstanceNorm", _norm("InstanceNorm", FEATURES)),
    Case("torch_geometric", "LayerNorm_graph", _norm("LayerNorm", FEATURES, mode="graph")),
    Case("torch_geometric", "LayerNorm_node", _norm("LayerNorm", FEATURES, mode="node")),
    Case("torch_geometric", "MeanSubtractionNorm", _norm("MeanSubtractionNorm")),
    Case("torch_geometric", "GraphSizeNorm", _norm("GraphSizeNorm")),
    Case("torch_geometric", "BatchNorm", _norm("BatchNorm", FEATURES)),
    Case("torch_geometric", "MedianAggregation", _aggr("MedianAggregation")),
    Case("torch_geometric", "QuantileAggregation", _aggr("QuantileAggregation", [0.25, 0.75])),
    Case("torch_geometric", "SoftmaxAggregation", _aggr("SoftmaxAggregation", learn=True)),
    Case("torch_geometric", "PowerMeanAggregation", _aggr("PowerMeanAggregation", learn=True)),
    Case("torch_geometric", "StdAggregation", _aggr("StdAggregation")),
    Case("torch_geometric", "MultiAggregation", _aggr("MultiAggregation", ["mean", "max", "std"])),
    Case("torch_geometric", "LSTMAggregation", _aggr("LSTMAggregation", FEATURES, 16)),
    Case("torch_geometric", "GRUAggregation", _aggr("GRUAggregation", FEATURES, 16)),
    Case("torch_geometric", "SetTransformerAggregation", _aggr("SetTransformerAggregation", FEATURES, heads=2)),
    Case("torch_geometric", "EquilibriumAggregation", _aggr("EquilibriumAggregation", FEATURES, 8, [8])),
    Case("torch_geometric", "MLPAggregation", _aggr("MLPAggregation", FEATURES, 16, NODES, num_layers=1)),
    Case("torch_geometric", "LCMAggregation", _aggr("LCMAggregation", FEATURES, 16)),
    Case("torch_geometric", "VariancePreservingAggregation", _aggr("VariancePreservingAggregation")),
    Case("torch_geometric", "DegreeScalerAggregation", _degree_scaler),
    Case("torch_geometric", "AGNNConv", _conv("AGNNConv")),
    Case("torch_geometric", "PANConv", _conv("PANConv", FEATURES, 16, filter_size=2)),
    Case("torch_geometric", "SignedConv", _signed),
    Case("torch_geometric", "WLConv", _wl),
    Case("torch_geometric", "FastRGCNConv", _fast_rgcn),
    Case("torch_geometric", "DNAConv", _dna),
    Case("torch_geometric", "GPSConv", _gps),
    Case("torch_geometric", "MLP", _mlp_model),
    Case("torch_geometric", "LabelPropagation", _label_propagation),
    Case("torch_geometric", "LINKX", _linkx),
    Case("torch_geometric", "RECT_L", _rect),
    Case("torch_geometric", "PMLP", _pmlp),
    Case("torch_geometric", "DenseGCNConv", _dense_gcn),
    Case("torch_geometric", "DMoNPooling", _dmon),
]


def _batched_nodes(device):
    import torch

    return (torch.randn(NODES, FEATURES, device=device),
            torch.tensor([0] * (NODES // 2) + [1] * (NODES - NODES // 2), device=device)), {}


def _unbatch_edges(device):
    import torch

    half = NODES // 2
    edge_index = torch.cat([torch.randint(0, half, (2, EDGES // 2)), torch.randint(half, NODES, (2, EDGES // 2))],
                           dim=1).to(device)
    return (edge_index, torch.tensor([0] * half + [1] * (NODES - half), device=device)), {}


def _k_hop_input(device):
    import torch

    return (0, 2, torch.randint(0, NODES, (2, EDGES), device=device)), {"num_nodes": NODES}


def _mask_input(device):
    import torch

    return (torch.rand(NODES, device=device) > 0.5,), {}


def _index_input(device):
    import torch

    return (torch.tensor([0, 3, 5], device=device),), {"size": NODES}


def _labels_input(device):
    import torch

    return (torch.randint(0, 4, (NODES,), device=device),), {}


def _homophily_input(device):
    import torch

    return (torch.randint(0, NODES, (2, EDGES), device=device), torch.randint(0, 3, (NODES,), device=device)), {}


def _cumsum_input(device):
    import torch

    return (torch.randint(0, 5, (NODES,), device=device),), {}


def _feature_input(device):
    import torch

    return (torch.randn(NODES, FEATURES, device=device),), {"p": 0.3, "training": True}


def _lexsort_input(device):
    import torch

    return ([torch.randint(0, 3, (NODES,), device=device), torch.randint(0, 3, (NODES,), device=device)],), {}


def _group_input(device):
    import torch

    return (torch.randn(NODES, device=device), torch.randint(0, 3, (NODES,), device=device)), {}


def _dense_graph(device):
    import torch

    return (torch.randn(2, 6, FEATURES, device=device), (torch.rand(2, 6, 6, device=device) > 0.5).float()), {}


def _dense_conv(cls: str, *args, **kwargs):
    def factory(device):
        from torch_geometric import nn

        return getattr(nn, cls)(*args, **kwargs), *_dense_graph(device)

    return factory


def _dense_gin(device):
    import torch
    from torch_geometric.nn import DenseGINConv

    return DenseGINConv(torch.nn.Sequential(torch.nn.Linear(FEATURES, 16), torch.nn.ReLU())), *_dense_graph(device)


def _diff_pool_input(device):
    import torch

    x, adj = _dense_graph(device)[0]
    return (x, adj, torch.randn(2, 6, 3, device=device)), {}


# Ninth session: more utilities, dense layers and configurations. Only names whose hash puts
# them in the dev half were added, so that the held-out half stays the set measured before.
CASES += [
    Case("torch_geometric", "GATConv_edge_dim", _conv("GATConv", FEATURES, 8, heads=2, edge_dim=4)),
    Case("torch_geometric", "GATConv_concat_false", _conv("GATConv", FEATURES, 8, heads=2, concat=False)),
    Case("torch_geometric", "SAGEConv_project", _conv("SAGEConv", FEATURES, 16, project=True)),
    Case("torch_geometric", "GENConv_softmax", _conv("GENConv", FEATURES, 16, aggr="softmax", learn_t=True)),
    Case("torch_geometric", "GeneralConv_attention", _conv("GeneralConv", FEATURES, 16, attention=True, heads=2)),
    Case("torch_geometric", "GATv2Conv_share", _conv("GATv2Conv", FEATURES, 8, heads=2, share_weights=True)),
    Case("torch_geometric", "SuperGATConv_SD", _conv("SuperGATConv", FEATURES, 8, heads=2, attention_type="SD")),
    Case("torch_geometric", "GCN_jk", _model("GCN", in_channels=FEATURES, hidden_channels=16, num_layers=3,
                                             jk="max")),
    Case("torch_geometric", "GIN_jk", _model("GIN", in_channels=FEATURES, hidden_channels=16, num_layers=2,
                                             jk="lstm")),
    Case("torch_geometric", "EdgeCNN_jk", _model("EdgeCNN", in_channels=FEATURES, hidden_channels=16, num_layers=2,
                                                 jk="cat")),
    Case("torch_geometric", "GAT_norm", _model("GAT", in_channels=FEATURES, hidden_channels=16, num_layers=2,
                                               heads=2, norm="batch_norm")),
    Case("torch_geometric", "DenseGINConv", _dense_gin),
    Case("torch_geometric", "DenseSAGEConv", _dense_conv("DenseSAGEConv", FEATURES, 16)),
    function_case("torch_geometric", "torch_geometric.nn.dense_diff_pool", _diff_pool_input),
    function_case("torch_geometric", "torch_geometric.utils.unbatch", _batched_nodes),
    function_case("torch_geometric", "torch_geometric.utils.unbatch_edge_index", _unbatch_edges),
    function_case("torch_geometric", "torch_geometric.utils.coalesce", _edge_index_input),
    function_case("torch_geometric", "torch_geometric.utils.is_undirected", _edge_index_input),
    function_case("torch_geometric", "torch_geometric.utils.k_hop_subgraph", _k_hop_input),
    function_case("torch_geometric", "torch_geometric.utils.mask_to_index", _mask_input),
    function_case("torch_geometric", "torch_geometric.utils.index_to_mask", _index_input),
    function_case("torch_geometric", "torch_geometric.utils.one_hot", _labels_input),
    function_case("torch_geometric", "torch_geometric.utils.negative_sampling", _edge_index_input),
    function_case("torch_geometric", "torch_geometric.utils.homophily", _homophily_input),
    function_case("torch_geometric", "torch_geometric.utils.cumsum", _cumsum_input),
    function_case("torch_geometric", "torch_geometric.utils.contains_isolated_nodes", _edge_index_input),
    function_case("torch_geometric", "torch_geometric.utils.remove_isolated_nodes", _edge_index_input),
    function_case("torch_geometric", "torch_geometric.utils.mask_feature", _feature_input),
    function_case("torch_geometric", "torch_geometric.utils.add_random_edge", _dropout_edge_input),
    function_case("torch_geometric", "torch_geometric.utils.lexsort", _lexsort_input),
    function_case("torch_geometric", "torch_geometric.utils.group_argsort", _group_input),
    function_case("torch_geometric", "torch_geometric.utils.assortativity", _edge_index_input),
]


def _select_input(device):
    import torch

    return (torch.randn(NODES, FEATURES, device=device), torch.rand(NODES, device=device) > 0.5, 0), {}


def _segment_input(device):
    import torch

    return (torch.randn(NODES, FEATURES, device=device), torch.tensor([0, 4, 9, NODES], device=device)), {
        "reduce": "max"}


def _spmm_input(device):
    import torch

    edge_index = torch.randint(0, NODES, (2, EDGES), device=device)
    adj = torch.sparse_coo_tensor(edge_index, torch.ones(EDGES, device=device), (NODES, NODES)).coalesce()
    return (adj, torch.randn(NODES, FEATURES, device=device)), {}


def _sparse_adj_input(device):
    return (_spmm_input(device)[0][0],), {}


def _self_loop_attr_input(device):
    import torch

    edge_index = torch.cat([torch.randint(0, NODES, (2, EDGES), device=device),
                            torch.arange(4, device=device).repeat(2, 1)], dim=1)
    return (edge_index, torch.randn(EDGES + 4, device=device)), {"num_nodes": NODES}


def _nested_input(device):
    import torch

    batch = torch.tensor([0] * 5 + [1] * (NODES - 5), device=device)
    return (torch.randn(NODES, FEATURES, device=device),), {"batch": batch}


def _hetero_linear(device):
    import torch
    from torch_geometric.nn import HeteroLinear

    return HeteroLinear(FEATURES, 16, num_types=3), (torch.randn(NODES, FEATURES, device=device),
                                                    torch.randint(0, 3, (NODES,), device=device)), {}


def _gae(cls: str):
    def factory(device):
        import torch
        from torch_geometric.nn import GCNConv, models

        class Encoder(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = GCNConv(FEATURES, 16)
                self.conv_mu, self.conv_logstd = GCNConv(16, 8), GCNConv(16, 8)

            def forward(self, x, edge_index):
                h = self.conv(x, edge_index).relu()
                variational = cls in ("VGAE", "ARGVA")
                return (self.conv_mu(h, edge_index), self.conv_logstd(h, edge_index)) if variational else h

        if cls == "ARGVA":  # adversarially regularized: a discriminator on the latent codes
            discriminator = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
            return models.ARGVA(Encoder(), discriminator), *_graph(device)
        return getattr(models, cls)(Encoder()), *_graph(device)

    return factory


def _linear(device):
    import torch
    from torch_geometric.nn import Linear

    return Linear(FEATURES, 16), (torch.randn(NODES, FEATURES, device=device),), {}


def _gin_train_eps(device):
    import torch
    from torch_geometric.nn import GINConv

    mlp = torch.nn.Sequential(torch.nn.Linear(FEATURES, 16), torch.nn.ReLU(), torch.nn.Linear(16, 16))
    return GINConv(mlp, train_eps=True), *_graph(device)


# Ninth session, second batch (dev half only, as above).
CASES += [
    Case("torch_geometric", "HeteroLinear", _hetero_linear),
    Case("torch_geometric", "Linear", _linear),
    Case("torch_geometric", "GAE", _gae("GAE")),
    Case("torch_geometric", "VGAE", _gae("VGAE")),
    Case("torch_geometric", "ResGatedGraphConv_edge", _conv("ResGatedGraphConv", FEATURES, 16, edge_dim=4)),
    Case("torch_geometric", "GINConv_train_eps", _gin_train_eps),
    Case("torch_geometric", "NeuralFingerprint", _model("NeuralFingerprint", in_channels=FEATURES,
                                                        hidden_channels=16, out_channels=4, num_layers=2)),
    function_case("torch_geometric", "torch_geometric.utils.select", _select_input),
    function_case("torch_geometric", "torch_geometric.utils.segment", _segment_input),
    function_case("torch_geometric", "torch_geometric.utils.spmm", _spmm_input),
    function_case("torch_geometric", "torch_geometric.utils.to_edge_index", _sparse_adj_input),
    function_case("torch_geometric", "torch_geometric.utils.get_self_loop_attr", _self_loop_attr_input),
    function_case("torch_geometric", "torch_geometric.utils.to_nested_tensor", _nested_input),
]


_METADATA = (["paper", "author"], [("paper", "cites", "paper"), ("author", "writes", "paper"),
                                   ("paper", "rev_writes", "author")])


def _hetero_graph(device):
    """A heterogeneous graph: 12 papers and 6 authors with 8 features, three edge types."""
    import torch

    x_dict = {"paper": torch.randn(NODES, FEATURES, device=device),
              "author": torch.randn(NODES // 2, FEATURES, device=device)}
    writes = torch.stack([torch.randint(0, NODES // 2, (20,), device=device),
                          torch.randint(0, NODES, (20,), device=device)])
    edge_index_dict = {("paper", "cites", "paper"): torch.randint(0, NODES, (2, EDGES), device=device),
                       ("author", "writes", "paper"): writes,
                       ("paper", "rev_writes", "author"): writes.flip(0)}
    return (x_dict, edge_index_dict), {}


def _hgt(device):
    from torch_geometric.nn import HGTConv

    return HGTConv(FEATURES, 16, _METADATA, heads=2), *_hetero_graph(device)


def _hetero_conv(device):
    from torch_geometric.nn import GATConv, GCNConv, HeteroConv, SAGEConv

    conv = HeteroConv({("paper", "cites", "paper"): GCNConv(FEATURES, 16),
                       ("author", "writes", "paper"): SAGEConv((FEATURES, FEATURES), 16),
                       ("paper", "rev_writes", "author"): GATConv((FEATURES, FEATURES), 16, add_self_loops=False)},
                      aggr="sum")
    return conv, *_hetero_graph(device)


def _hetero_dict_linear(device):
    from torch_geometric.nn import HeteroDictLinear

    (x_dict, _), _ = _hetero_graph(device)
    return HeteroDictLinear(FEATURES, 16, types=["paper", "author"]), (x_dict,), {}


def _ppf(device):
    import torch
    from torch_geometric.nn import PPFConv

    local = torch.nn.Sequential(torch.nn.Linear(FEATURES + 4, 16), torch.nn.ReLU())
    (x, edge_index), _ = _graph(device)
    normal = torch.nn.functional.normalize(torch.randn(NODES, 3, device=device), dim=-1)
    return PPFConv(local, torch.nn.Linear(16, 16)), (x, torch.randn(NODES, 3, device=device), normal, edge_index), {}


def _message_norm(device):
    import torch
    from torch_geometric.nn import MessageNorm

    return MessageNorm(learn_scale=True), (torch.randn(NODES, FEATURES, device=device),
                                           torch.randn(NODES, FEATURES, device=device)), {}


def _deep_sets(device):
    import torch
    from torch_geometric.nn.aggr import DeepSetsAggregation

    aggr = DeepSetsAggregation(local_nn=torch.nn.Linear(FEATURES, 16), global_nn=torch.nn.Linear(16, 16))
    return aggr, (torch.randn(NODES, FEATURES, device=device), _batch(device)), {}


def _positional_encoding(device):
    import torch
    from torch_geometric.nn import PositionalEncoding

    return PositionalEncoding(16), (torch.arange(NODES, device=device).float(),), {}


def _normalized_cut_input(device):
    import torch

    return (torch.randint(0, NODES, (2, EDGES), device=device), torch.rand(EDGES, device=device)), {
        "num_nodes": NODES}


def _pool_x_input(device):
    import torch

    cluster = torch.tensor([0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5], device=device)
    return (cluster, torch.randn(NODES, FEATURES, device=device), _batch(device)), {}


# Fifteenth session: more dev cases (names that hash to dev only).
CASES += [
    Case("torch_geometric", "HGTConv", _hgt),
    Case("torch_geometric", "HeteroConv", _hetero_conv),
    Case("torch_geometric", "HeteroDictLinear", _hetero_dict_linear),
    Case("torch_geometric", "PPFConv", _ppf),
    Case("torch_geometric", "WLConvContinuous", _conv("WLConvContinuous")),
    Case("torch_geometric", "MessageNorm", _message_norm),
    Case("torch_geometric", "DeepSetsAggregation", _deep_sets),
    Case("torch_geometric", "ARGVA", _gae("ARGVA")),
    Case("torch_geometric", "PositionalEncoding", _positional_encoding),
    function_case("torch_geometric", "torch_geometric.utils.normalized_cut", _normalized_cut_input),
    function_case("torch_geometric", "torch_geometric.nn.max_pool_x", _pool_x_input),
]


def _typed_conv(cls: str, *args, **kwargs):
    """A relational convolution on the 12-node graph with three edge types."""

    def factory(device):
        import torch
        from torch_geometric import nn

        (x, edge_index), _ = _graph(device)
        return getattr(nn, cls)(*args, **kwargs), (x, edge_index, torch.randint(0, 3, (EDGES,), device=device)), {}

    return factory


def _sage_lstm(device):
    """SAGEConv with LSTM aggregation: edges sorted by destination, as that aggregation requires."""
    from torch_geometric.nn import SAGEConv

    (x, edge_index), _ = _graph(device)
    return SAGEConv(FEATURES, 16, aggr="lstm"), (x, edge_index[:, edge_index[1].argsort()]), {}


def _jumping_knowledge(device):
    import torch
    from torch_geometric.nn import JumpingKnowledge

    return JumpingKnowledge("cat"), ([torch.randn(NODES, 16, device=device) for _ in range(3)],), {}


def _index_sort_input(device):
    import torch

    return (torch.randint(0, 50, (EDGES,), device=device),), {"max_value": 50}



def _get_num_hops_input(device):
    from torch_geometric.nn.models import GCN

    return (GCN(FEATURES, 16, num_layers=2),), {}



def _dropout_adj_input(device):
    import torch

    return (torch.randint(0, NODES, (2, EDGES), device=device),), {"p": 0.3, "training": True}


# Eighteenth session: more dev cases (names that hash to dev only).
CASES += [
    Case("torch_geometric", "SAGEConv_lstm", _sage_lstm),
    Case("torch_geometric", "RGCNConv_blocks", _typed_conv("RGCNConv", FEATURES, 16, num_relations=3, num_blocks=4)),
    Case("torch_geometric", "FiLMConv_relations", _typed_conv("FiLMConv", FEATURES, 16, num_relations=3)),
    Case("torch_geometric", "RGATConv_additive", _typed_conv("RGATConv", FEATURES, 8, num_relations=3,
                                                           attention_mode="additive-self-attention",
                                                           attention_mechanism="across-relation")),
    Case("torch_geometric", "GATConv_residual", _conv("GATConv", FEATURES, 8, heads=2, residual=True)),
    Case("torch_geometric", "TransformerConv_concat_false", _conv("TransformerConv", FEATURES, 8, heads=2,
                                                                  concat=False, root_weight=False)),
    Case("torch_geometric", "GCNConv_improved", _conv("GCNConv", FEATURES, 16, improved=True, normalize=True)),
    Case("torch_geometric", "APPNP_dropout", _conv("APPNP", K=3, alpha=0.2, dropout=0.5)),
    Case("torch_geometric", "JumpingKnowledge_cat", _jumping_knowledge),
    function_case("torch_geometric", "torch_geometric.utils.index_sort", _index_sort_input),
    function_case("torch_geometric", "torch_geometric.utils.get_num_hops", _get_num_hops_input),
    function_case("torch_geometric", "torch_geometric.utils.dropout_adj", _dropout_adj_input),
]


def _segregate_input(device):
    import torch

    (_, edge_index), _ = _graph(device)
    loops = torch.arange(4, device=device).repeat(2, 1)
    return (torch.cat([edge_index, loops], dim=1), torch.randn(EDGES + 4, 3, device=device)), {}


def _avg_pool_x_input(device):
    (cluster, x, batch), _ = _pool_x_input(device)
    return (cluster, x, batch), {}


def _one_hot_classes_input(device):
    import torch

    return (torch.randint(0, 5, (NODES,), device=device),), {"num_classes": 5}


def _sag_graphconv(device):
    from torch_geometric.nn import GraphConv, SAGPooling

    (x, edge_index), _ = _graph(device)
    return SAGPooling(FEATURES, ratio=0.5, GNN=GraphConv), (x, edge_index), {"batch": _batch(device)}


def _is_sparse_input(device):
    (_, edge_index), _ = _graph(device)
    return (edge_index,), {}


# Eighteenth session, second batch (names that hash to dev only).
CASES += [
    function_case("torch_geometric", "torch_geometric.utils.segregate_self_loops", _segregate_input),
    function_case("torch_geometric", "torch_geometric.nn.avg_pool_x", _avg_pool_x_input),
    function_case("torch_geometric", "torch_geometric.utils.one_hot", _one_hot_classes_input,
                  name="utils.one_hot_num_classes"),
    function_case("torch_geometric", "torch_geometric.utils.is_sparse", _is_sparse_input),
    Case("torch_geometric", "nn.TopKPooling_multiplier", _pool("TopKPooling", FEATURES, ratio=0.5, multiplier=2.0)),
    Case("torch_geometric", "nn.SAGPooling_gnn", _sag_graphconv),
]
