"""A project type alias written as a `|` union with a tensor member (`NdarrayOrTensor =
np.ndarray | torch.Tensor`, MONAI's spelling) resolves like `Union[...]` and `Optional[...]`
aliases do: a parameter annotated with it is a tensor. Dynamo traces a NumPy array in a compiled
function as a tensor too, so either way a branch on its values (BRK101, GB0170) and boolean-mask
indexing (BRK106, GB0036) break. Static pass and Dynamo, through `breakscan run -m`.
"""

from __future__ import annotations

import pytest

from tests.conftest import assert_package_confirms, requires_torch, static_located

PACKAGE = {
    "imgkit/__init__.py": "",
    "imgkit/types.py": '''\
import numpy as np
import torch

NdarrayOrTensor = np.ndarray | torch.Tensor
''',
    "imgkit/ops.py": '''\
from .types import NdarrayOrTensor


def rescale(img: NdarrayOrTensor, top: float = 1.0):
    low, high = img.min(), img.max()
    if low == high:
        return img * 0
    return (img - low) / (high - low) * top


def nonzero_values(img: NdarrayOrTensor):
    return img[img != 0]
''',
    "imgkit/run.py": '''\
import torch

from .ops import nonzero_values, rescale

scale = torch.compile(rescale, backend="eager")
pick = torch.compile(nonzero_values, backend="eager")
print(scale(torch.randn(4, 4)).shape, pick(torch.randn(4, 4)).shape)
''',
}


def test_a_union_alias_with_a_tensor_member_makes_a_tensor(tmp_path):
    found = static_located(tmp_path, PACKAGE)
    assert {("BRK101", "ops.py", 6), ("BRK106", "ops.py", 12)} <= found, found


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_the_breaks_on_a_union_alias_parameter(tmp_path):
    assert_package_confirms(tmp_path, PACKAGE, "imgkit.run", [("BRK101", "ops.py", 6), ("BRK106", "ops.py", 12)])
