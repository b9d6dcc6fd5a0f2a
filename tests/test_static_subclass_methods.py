"""A method `torch.Tensor` does not have, called on a value the inference takes for a tensor, is
a tensor subclass's own (`img.peek_pending_rank()` of MONAI's `MetaTensor`): its result is of
unknown kind, not a tensor. The names come from `rules/data/torch-ops.json`
(`tensor_method_names`, `ndarray_method_names`: `dir()` of `torch.Tensor` and `numpy.ndarray`,
whose arrays Dynamo traces as tensors). From a new MONAI dev case
(`CenterSpatialCrop`: `int(spatial_rank)` was a BRK104 false alarm). Checked with `breakscan run`
on 2.13 and 2.15."""

from __future__ import annotations

import pytest

from tests.conftest import assert_script_confirms, requires_torch, rule_lines, static_findings

SOURCE = '''
    import torch


    class Tagged(torch.Tensor):
        def pending_rank(self):
            return 2


    def translate(rank, shift):
        rank = int(rank)
        out = torch.eye(rank + 1)
        out[:rank, -1] = shift
        return out


    @torch.compile(backend="eager")
    def crop(img: torch.Tensor):
        rank = img.pending_rank() if isinstance(img, Tagged) else 2
        return translate(rank, 1.0).sum() * img


    if __name__ == "__main__":
        crop(torch.ones(3, 4, 4))
        crop(torch.ones(3, 4, 4))
    '''


def test_a_subclass_method_result_is_not_a_tensor(tmp_path):
    assert rule_lines(static_findings(tmp_path, {"train.py": SOURCE})) == set()


def test_a_tensor_method_result_still_is(tmp_path):
    source = SOURCE.replace("img.pending_rank()", "img.sum()")
    assert rule_lines(static_findings(tmp_path, {"train.py": source})) == {("BRK104", 11)}


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_agrees(tmp_path):
    assert_script_confirms(tmp_path, SOURCE, set())


NUMPY = '''
    import numpy as np
    import torch


    @torch.compile(backend="eager")
    def rank_of(x):
        a = np.array(x.sum(), dtype=np.float64)
        n = int(a.astype(np.uint))
        return x * n


    if __name__ == "__main__":
        rank_of(torch.ones(3))
        rank_of(torch.ones(3))
    '''


def test_a_numpy_array_method_keeps_the_array_a_tensor(tmp_path):
    # Dynamo traces the array as a tensor: `astype` is ndarray's, and `int()` of it breaks
    assert rule_lines(static_findings(tmp_path, {"train.py": NUMPY})) == {("BRK104", 9)}


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_agrees_on_the_array(tmp_path):
    assert_script_confirms(tmp_path, NUMPY, {("BRK104", 9)})
