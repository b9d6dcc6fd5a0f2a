"""BRK276: a NumPy function that `torch._numpy` maps but that returns a Python `int`/`bool` or a
dtype (`np.isscalar`, `np.ndim`, `np.result_type`...) breaks the graph where a compiled region calls
it, whatever its arguments (GB0208, measured on 2.13 and 2.15). The list is read from Dynamo's own
`get_np_to_tnp_map` by calling each function (scripts/refresh_torch_data.py). From the dev misses
of MONAI's `NormalizeIntensity` (`np.isscalar(_div)`) and `get_extreme_points`
(`np.size(indices[0])`); here a user's package with relative imports and unannotated helpers."""

from __future__ import annotations

import pytest

from tests.conftest import assert_package_confirms, requires_torch, static_located, torch_ops_tag

PACKAGE = {
    "scaler/__init__.py": "",
    "scaler/checks.py": '''
        import numpy as np


        def divide(x, div):
            if np.isscalar(div):
                return x / div
            return x


        def spread(x):
            return x * np.ndim(x)
        ''',
    "scaler/model.py": '''
        import numpy as np
        import torch

        from .checks import divide, spread


        def normalise(x, div=2.0):
            y = divide(x, div)
            rows = np.shape(x)[0]
            mean = np.mean(y.numpy())
            return spread(y) + rows + float(mean) + x.numpy().size
        ''',
    "scaler/run.py": '''
        import torch

        from .model import normalise

        fast = torch.compile(normalise, backend="eager")
        fast(torch.randn(2, 3))
        ''',
}
EXPECTED = {("BRK276", "checks.py", 6), ("BRK276", "checks.py", 12)}


def test_the_list_is_read_from_dynamo_by_calling_each_mapped_function():
    calls = set(torch_ops_tag("numpy_python_result")["calls"])
    assert {"numpy.isscalar", "numpy.ndim", "numpy.size", "numpy.result_type"} <= calls
    assert not {"numpy.shape", "numpy.mean", "numpy.interp", "numpy.random.rand"} & calls


def test_numpy_functions_with_a_python_result_are_predicted_and_others_are_not(tmp_path):
    assert {f for f in static_located(tmp_path, PACKAGE) if f[0] == "BRK276"} == EXPECTED


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_breaks_on_each_and_on_nothing_else(tmp_path):
    assert_package_confirms(tmp_path, PACKAGE, "scaler.run", EXPECTED)
