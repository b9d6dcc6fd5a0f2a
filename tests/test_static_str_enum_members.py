"""BRK247: a `str` method called on a member of a `str` enum (`class Weight(str, Enum)`) breaks
(GB0156 on 2.13 and 2.15), in a user's script through `breakscan run`. The member is known from
`Weight.SQUARE` written in the region, a parameter defaulting to one, and an unannotated (or
`Any`/`Hashable`) parameter of a helper every traced call passes one to. Comparisons, `.value`
and members of a plain `Enum` are traced, and not flagged.
"""

from __future__ import annotations

import pytest

from tests.conftest import assert_script_confirms, assert_script_flags, requires_torch

SCRIPT = '''\
import enum
from typing import Hashable

import torch


class Weight(str, enum.Enum):
    SIMPLE = "simple"
    SQUARE = "square"


class Mode(enum.Enum):
    A = "a"


def lookup(opt: Hashable, supported):
    if isinstance(opt, str):
        opt = opt.strip()
    return supported(opt)


@torch.compile(backend="eager")
def weighted(x, weight_type=Weight.SQUARE):
    w = lookup(weight_type, Weight)
    if w == Weight.SQUARE:
        x = x * x
    return x * len(Weight.SIMPLE.upper())


@torch.compile(backend="eager")
def traced(x, weight_type=Weight.SQUARE, mode=Mode.A):
    if weight_type == "square":
        x = x * 2
    return x * len(weight_type.value.upper()) * len(mode.value.strip())


weighted(torch.randn(3))
traced(torch.randn(3))
'''
BREAKS = [("BRK247", 18), ("BRK247", 27)]


def test_str_methods_on_str_enum_members_are_flagged(tmp_path):
    assert_script_flags(tmp_path, SCRIPT, BREAKS, quiet_lines=[25, 32, 34])


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_str_methods_on_str_enum_members(tmp_path):
    assert_script_confirms(tmp_path, SCRIPT, BREAKS)
