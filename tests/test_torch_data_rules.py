"""Rules whose callee lists are data read from the installed torch, checked against real Dynamo.

BRK303 (`torch_ops = ["nn_parameter_ctor"]`): building a `torch.nn` module that has parameters with
default options (`nn.Linear`, `nn.LayerNorm`, `nn.Sequential(..., nn.Linear(...))`) inside a compiled
region breaks the graph at that line (GB0264 inside torch); modules without parameters
(`nn.ReLU()`, `nn.InstanceNorm1d(c)` whose affine is off by default) do not.
BRK240 (`torch_ops = ["dynamo_skipped_functions"]`): torch functions trace_rules marks as skipped
(`torch.jit.isinstance`, `pack_padded_sequence`) break the graph (GB0007).
BRK251 (`torch_ops = ["thirdparty_skipped"]`): calls into the third-party packages trace_rules skips
(networkx, tqdm, pandas...) break the graph (GB0007).
"""

from __future__ import annotations

import json
from pathlib import Path

from breakscan.catalog import load_catalog
from tests.conftest import break_statuses, cli_findings, requires_torch, write_files

ROOT = Path(__file__).resolve().parent.parent

# A user's package: blocks built lazily in forward, a helper module with relative imports, no annotations.
PACKAGE = {
    "proj/__init__.py": "",
    "proj/heads.py": '''
        import torch
        from torch import nn
        from torch.nn.utils.rnn import pack_padded_sequence


        def lazy_norm(x):
            norm = nn.LayerNorm(x.shape[-1])
            return norm(x)


        def plain_ops(x):
            act = nn.ReLU()
            inorm = nn.InstanceNorm1d(2)
            return inorm(act(x))


        def merge_skip(x, skip):
            if skip is not None and torch.jit.isinstance(skip, torch.Tensor):
                x = x + skip
            return x * 2


        def packed_total(x, lengths):
            packed = pack_padded_sequence(x, lengths, batch_first=True)
            return packed.data.sum() + 1
        ''',
    "proj/model.py": '''
        import torch
        from torch import nn

        from .heads import lazy_norm, merge_skip, packed_total, plain_ops


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.body = nn.Linear(4, 4)

            def forward(self, x, skip):
                head = nn.Sequential(nn.ReLU(), nn.Linear(4, 4))
                y = head(self.body(x))
                y = lazy_norm(y)
                return merge_skip(plain_ops(y), skip)


        def breakscan_examples():
            yield Net(), (torch.randn(2, 2, 4), torch.randn(2, 2, 4))
            yield packed_total, (torch.randn(2, 3, 4), torch.tensor([3, 2]))
        ''',
}


@requires_torch
def test_module_constructors_with_parameters_and_skipped_torch_functions_are_confirmed(tmp_path):
    write_files(tmp_path, PACKAGE)
    found = break_statuses(cli_findings(tmp_path, "check", "proj", "--show-refuted", cache=tmp_path / "cache"))
    assert {
        ("BRK303", "model.py", 14, "confirmed"),  # nn.Sequential(nn.ReLU(), nn.Linear(4, 4))
        ("BRK303", "heads.py", 8, "confirmed"),  # nn.LayerNorm(d) in a helper the region calls
        ("BRK240", "heads.py", 19, "confirmed"),  # torch.jit.isinstance
        ("BRK240", "heads.py", 25, "confirmed"),  # pack_padded_sequence
    } <= found
    # nn.ReLU() / nn.InstanceNorm1d(2) build no parameter: no prediction and no break there.
    assert not {f for f in found if f[1] == "heads.py" and f[2] in (13, 14)}
    assert not {f for f in found if f[3] in ("refuted", "observed")}


def test_torch_data_lists_come_from_the_installed_torch_and_feed_the_rules():
    tags = json.loads((ROOT / "rules" / "data" / "torch-ops.json").read_text())["tags"]
    modules, skipped = tags["nn_parameter_ctor"], tags["dynamo_skipped_functions"]
    assert {"torch.nn.Linear", "torch.nn.LayerNorm", "torch.nn.Conv2d"} <= set(modules["calls"])
    assert not {"torch.nn.ReLU", "torch.nn.Dropout", "torch.nn.InstanceNorm2d"} & set(modules["calls"])
    assert "torch.jit.isinstance" in skipped["calls"]
    assert skipped["not_by_name"]["torch.manual_seed"] == "matched by BRK215"  # reported once, by BRK215
    catalog = load_catalog()
    assert "torch.nn.Linear" in catalog["BRK303"].match["calls"]
    assert "torch.jit.isinstance" in catalog["BRK240"].match["calls"]
    assert "torch.manual_seed" not in catalog["BRK240"].match["calls"]


# BRK251 (`torch_ops = ["thirdparty_skipped"]`): a package in Dynamo's THIRDPARTY_SKIPLIST called in a
# region, through a helper module imported relatively; networkx ships with torch. A parameter that
# happens to share a skipped package's name (`tree`) is the user's object, not the package.
SKIPPED_PACKAGE = {
    "graphs/__init__.py": "",
    "graphs/hops.py": '''
        from networkx import Graph


        def node_count(edges):
            return Graph(edges).number_of_nodes()


        def scaled(x, tree):
            return x * tree.scale()
        ''',
    "graphs/model.py": '''
        import torch

        from .hops import node_count, scaled


        class Scale:
            def scale(self):
                return 3


        def step(x, edges):
            y = scaled(x * 2, Scale())
            return y + node_count(edges)


        def breakscan_examples():
            yield step, (torch.ones(4), [(0, 1), (1, 2)])
        ''',
}


@requires_torch
def test_calls_into_a_package_dynamo_skips_are_confirmed(tmp_path):
    write_files(tmp_path, SKIPPED_PACKAGE)
    found = break_statuses(cli_findings(tmp_path, "check", "graphs", "--show-refuted", cache=tmp_path / "cache"))
    assert ("BRK251", "hops.py", 6, "confirmed") in found  # Graph(edges), networkx imported by name
    assert not {f for f in found if f[1] == "hops.py" and f[2] == 10}  # tree.scale(): a parameter
    assert not {f for f in found if f[3] in ("refuted", "observed")}
    tags = json.loads((ROOT / "rules" / "data" / "torch-ops.json").read_text())["tags"]
    assert {"tqdm.*", "pandas.*", "networkx.*"} <= set(tags["thirdparty_skipped"]["calls"])
    assert "numpy.*" not in tags["thirdparty_skipped"]["calls"]  # traced through torch._numpy
