"""A parameter whose default is a function (`overlap=box_iou`, `act=F.relu`): called without the
argument, it runs the default, which Dynamo traces inline, so the default's breaks are in the
compile region. Driven through `breakscan run` on a user's script (2.13 and 2.15). A default
function the body never calls is not a region.
"""

from __future__ import annotations

import pytest

from tests.conftest import assert_script_confirms, assert_script_flags, requires_torch

SCRIPT = '''\
import torch


def box_iou(a, b):
    lt = torch.max(a[:, None, :2], b[:, :2])
    rb = torch.min(a[:, None, 2:], b[:, 2:])
    inter = (rb - lt).clamp(min=0).prod(-1)
    area = (a[:, 2:] - a[:, :2]).prod(-1)
    iou = inter / (area[:, None] + area - inter)
    if torch.isnan(iou).any():
        raise ValueError("NaN IoU")
    return iou


def report(x):
    print("boxes:", x.sum().item())


def suppress(boxes, overlap=box_iou, log=report, threshold=0.5):
    keep = overlap(boxes, boxes).triu(1).amax(1) < threshold
    return boxes * keep[:, None]


@torch.compile(backend="eager")
def postprocess(boxes):
    return suppress(boxes)


corners = torch.rand(6, 2) * 10
postprocess(torch.cat([corners, corners + 1], dim=1))
'''
BREAKS = [("BRK101", 10)]


def test_a_default_function_that_is_called_is_in_the_region(tmp_path):
    assert_script_flags(tmp_path, SCRIPT, BREAKS, quiet_lines=[16])


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_a_break_in_a_default_function(tmp_path):
    assert_script_confirms(tmp_path, SCRIPT, BREAKS)
