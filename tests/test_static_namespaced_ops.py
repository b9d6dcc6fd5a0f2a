"""BRK105 on an ATen op that Python exposes under a namespace: `aten.linalg_lstsq` is tagged with a
dynamic output shape, and users call it as `torch.linalg.lstsq` (GB0036 on 2.13 and 2.15). The
refresh script maps `linalg_`/`special_`/`fft_` ops to their namespaced names, so the list stays
torch's own. From the dev miss of MONAI's Savitzky-Golay filter; here a user's package with
relative imports and an unannotated helper."""

from __future__ import annotations

import pytest

from tests.conftest import assert_package_confirms, requires_torch, static_located, torch_ops_tag

PACKAGE = {
    "fitkit/__init__.py": "",
    "fitkit/solve.py": '''
        import torch


        def fit(design, target):
            coeffs = torch.linalg.lstsq(design, target).solution
            return design @ coeffs


        def smooth(x):
            return torch.linalg.solve(x.T @ x + torch.eye(x.shape[1]), x.T @ x)
        ''',
    "fitkit/run.py": '''
        import torch

        from .solve import fit, smooth

        torch.compile(fit, backend="eager")(torch.randn(6, 3), torch.randn(6, 2))
        torch.compile(smooth, backend="eager")(torch.randn(6, 3))
        ''',
}
EXPECTED = {("BRK105", "solve.py", 6)}


def test_namespaced_dynamic_shape_ops_are_listed_by_their_python_names():
    tag = torch_ops_tag("dynamic_output_shape")
    assert "linalg_lstsq" in tag["aten"] and "torch.linalg.lstsq" in tag["calls"]
    assert "linalg_lstsq" not in tag["not_by_name"]


def test_lstsq_is_predicted_and_solve_is_not(tmp_path):
    assert {f for f in static_located(tmp_path, PACKAGE) if f[0] == "BRK105"} == EXPECTED


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_breaks_on_lstsq_only(tmp_path):
    assert_package_confirms(tmp_path, PACKAGE, "fitkit.run", EXPECTED)
