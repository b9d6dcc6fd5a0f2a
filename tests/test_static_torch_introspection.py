"""BRK241: an `in` test on a torch function's `__kwdefaults__` / `__doc__` (a version check) makes
Dynamo 2.13 fall back to eager for the frame (GB4411, missing sq_contains), checked through the
CLI on a user's package whose grid helper lives in a sibling module. Its neighbours are traced and
not flagged: `is not None` on the same attribute, a module constant computed at import time, and
the `__kwdefaults__` of the user's own function."""

from __future__ import annotations

from tests.conftest import break_statuses, cli_findings, requires_torch, write_files

PACKAGE = {
    "warp/__init__.py": "",
    "warp/grids.py": '''
        import torch

        HAS_INDEXING = "indexing" in (torch.meshgrid.__kwdefaults__ or {})


        def meshgrid_ij(*tensors):
            if torch.meshgrid.__kwdefaults__ is not None and "indexing" in torch.meshgrid.__kwdefaults__:
                return torch.meshgrid(*tensors, indexing="ij")
            return torch.meshgrid(*tensors)


        def meshgrid_ij_cached(*tensors):
            if HAS_INDEXING:
                return torch.meshgrid(*tensors, indexing="ij")
            return torch.meshgrid(*tensors)


        def scaled(x, *, factor=2.0):
            return x * factor
        ''',
    "warp/flow.py": '''
        import torch

        from .grids import meshgrid_ij, meshgrid_ij_cached, scaled


        def identity_grid(ddf):
            ys, xs = meshgrid_ij(torch.arange(ddf.shape[2]), torch.arange(ddf.shape[3]))
            return torch.stack([ys, xs]).unsqueeze(0) + ddf


        def identity_grid_cached(ddf):
            ys, xs = meshgrid_ij_cached(torch.arange(ddf.shape[2]), torch.arange(ddf.shape[3]))
            return torch.stack([ys, xs]).unsqueeze(0) + ddf


        def rescale(ddf):
            if "factor" in scaled.__kwdefaults__:
                return scaled(ddf)
            return ddf


        def breakscan_examples():
            ddf = torch.randn(1, 2, 4, 4)
            yield identity_grid, (ddf,)
            yield identity_grid_cached, (ddf,)
            yield rescale, (ddf,)
        ''',
}


@requires_torch
def test_contains_on_torch_function_kwdefaults_falls_back(tmp_path):
    write_files(tmp_path, PACKAGE)
    found = break_statuses(cli_findings(tmp_path, "check", "warp", "--show-refuted", cache=tmp_path / "cache"))
    assert ("BRK241", "grids.py", 8, "confirmed") in found
    assert not {f for f in found if f[1] == "grids.py" and f[2] != 8}  # the constant, the user function
    assert not {f for f in found if f[1] == "flow.py"}
    assert not {f for f in found if f[3] in ("refuted", "observed")}
