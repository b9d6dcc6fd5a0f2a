"""`numpy.random` functions that `torch._numpy` does not map (`np.random.permutation`, `beta`,
`poisson`...) break the graph where a compiled region calls them (GB0294, BRK234): the list
is read from Dynamo's own `get_np_to_tnp_map` by scripts/refresh_torch_data.py. Measured on 2.13
through the CLI on a user package with a relative import."""

from __future__ import annotations

from tests.conftest import break_statuses, cli_findings, requires_torch, torch_ops_tag, write_files

PACKAGE = {
    "rnd/__init__.py": "",
    "rnd/blocks.py": '''
        import numpy as np


        def pick_blocks(n):
            order = np.random.permutation(np.arange(n))
            return order[:2]
        ''',
    "rnd/model.py": '''
        import torch
        from torch import nn

        from .blocks import pick_blocks


        class Sparse(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(4, 4)

            def forward(self, x):
                chosen = pick_blocks(6)
                return self.lin(x) * len(chosen)


        def breakscan_examples():
            yield Sparse(), (torch.randn(2, 4),)
        ''',
}
EXPECTED = {("BRK234", "blocks.py", 6)}


def test_unmapped_numpy_random_functions_are_listed_from_dynamo():
    calls = set(torch_ops_tag("numpy_untraced")["calls"])
    assert {"numpy.random.permutation", "numpy.random.beta"} <= calls
    assert not {"numpy.random.rand", "numpy.random.choice", "numpy.random.seed"} & calls  # mapped
    assert "numpy.random.default_rng" not in calls  # BRK206 matches it (one finding per call)


def test_an_unmapped_numpy_random_call_is_predicted(tmp_path):
    write_files(tmp_path, PACKAGE)
    found = break_statuses(cli_findings(tmp_path, "check", "rnd", "--no-dynamic", "--no-cache"))
    assert {f[:3] for f in found} == EXPECTED


@requires_torch
def test_dynamo_breaks_on_the_unmapped_numpy_random_call(tmp_path):
    write_files(tmp_path, PACKAGE)
    found = break_statuses(cli_findings(tmp_path, "check", "rnd", "--show-refuted", cache=tmp_path / "cache"))
    assert found == {(*f, "confirmed") for f in EXPECTED}
