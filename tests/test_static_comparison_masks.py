"""A comparison whose result has an array-only method called on it (`(a < b).sum()`, `.any()`)
is elementwise, so a tensor mask even where `a` and `b` are of unknown kind (a Python bool has
no `.sum()`; a NumPy mask is a tensor under Dynamo): a branch on it is BRK101 (GB0170). Here the
operands come from a method of an object a lookup builds, as MONAI's box utilities get them
(`get_boxmode(mode).boxes_to_corners(boxes)`). A list comparison is not taken for one. Driven
through `breakscan run` on a user's script (2.13 and 2.15).
"""

from __future__ import annotations

import pytest

from tests.conftest import assert_script_confirms, assert_script_flags, requires_torch

SCRIPT = '''\
import torch


class CornerMode:
    def to_corners(self, boxes):
        return boxes.split(1, dim=-1)


MODES = {"xyxy": CornerMode}


def get_mode(name):
    return MODES[name]()


def check_boxes(boxes, name="xyxy"):
    mode = get_mode(name)
    corners = mode.to_corners(boxes)
    if (corners[2] < corners[0]).sum() > 0:
        boxes = boxes.abs()
    empty = (corners[3] == corners[1]).any()
    if [1, 2] == [1, 2]:
        empty = empty | False
    return boxes, empty


@torch.compile(backend="eager")
def postprocess(boxes):
    checked, empty = check_boxes(boxes)
    return checked * 2, empty


corners = torch.rand(5, 2)
postprocess(torch.cat([corners, corners + 1], dim=1))
'''
BREAKS = [("BRK101", 19)]


def test_a_reduced_comparison_is_a_tensor_mask(tmp_path):
    assert_script_flags(tmp_path, SCRIPT, BREAKS, quiet_lines=[21, 22])


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_a_branch_on_a_reduced_comparison(tmp_path):
    assert_script_confirms(tmp_path, SCRIPT, BREAKS)
