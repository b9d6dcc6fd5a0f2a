"""BRK247 in a lookup helper shared by many callers: the `str` method on its parameter breaks
where one traced call passes a `str` enum member, even when another traced call passes a plain
string (that call traces the line without a break; the member's call breaks there, GB0156, on
2.13 and 2.15). From the dev misses of MONAI's `look_up_option`, which every option of the
library goes through (`GeneralizedDiceScore`'s `Weight`, `sliding_window_inference`'s
`BlendMode`). A user's package with relative imports: the metric stores the member in `__init__`
and passes it on; a reduction helper passes a string. When no traced call passes a member,
nothing is flagged."""

from __future__ import annotations

import pytest

from tests.conftest import assert_package_confirms, requires_torch, static_located

PACKAGE = {
    "metkit/__init__.py": "",
    "metkit/enums.py": '''
        from enum import Enum


        class StrEnum(str, Enum):
            def __str__(self):
                return self.value


        class Weight(StrEnum):
            SQUARE = "square"
            SIMPLE = "simple"
        ''',
    "metkit/utils.py": '''
        import enum


        def look_up_option(opt_str, supported, default="no_default"):
            if isinstance(opt_str, str):
                opt_str = opt_str.strip()
            if isinstance(supported, enum.EnumMeta):
                if isinstance(opt_str, str) and opt_str in {item.value for item in supported}:
                    return supported(opt_str)
                if isinstance(opt_str, enum.Enum) and opt_str in supported:
                    return opt_str
            elif opt_str in supported:
                return opt_str
            if default != "no_default":
                return default
            raise ValueError(f"unsupported option {opt_str}")
        ''',
    "metkit/metrics.py": '''
        import torch

        from .enums import Weight
        from .utils import look_up_option


        def generalized_dice(y_pred, y, weight_type: Weight | str = Weight.SQUARE):
            weight_type = look_up_option(weight_type, Weight)
            vol = y.sum(dim=-1)
            if weight_type == Weight.SIMPLE:
                w = torch.reciprocal(vol.float())
            else:
                w = torch.reciprocal(vol.float() * vol.float())
            return (w * (y_pred * y).sum(dim=-1)).sum() / w.sum()


        def reduce(x, reduction="mean"):
            reduction = look_up_option(reduction, ["mean", "sum"])
            return x.mean() if reduction == "mean" else x.sum()


        class GeneralizedDice:
            def __init__(self, weight_type: Weight | str = Weight.SQUARE):
                self.weight_type = look_up_option(weight_type, Weight)

            def __call__(self, y_pred, y):
                return reduce(generalized_dice(y_pred, y, weight_type=self.weight_type))
        ''',
    "metkit/run.py": '''
        import torch

        from .metrics import GeneralizedDice

        metric = GeneralizedDice()
        torch.compile(metric.__call__, backend="eager")(torch.rand(2, 8), (torch.rand(2, 8) > 0.5).float())
        ''',
}
EXPECTED = {("BRK247", "utils.py", 7)}


def test_a_member_passed_by_one_traced_call_flags_the_shared_helper(tmp_path):
    assert {f for f in static_located(tmp_path, PACKAGE) if f[0] == "BRK247"} == EXPECTED


def test_only_strings_passed_flag_nothing(tmp_path):
    files = dict(PACKAGE)
    files["metkit/metrics.py"] = PACKAGE["metkit/metrics.py"].replace(
        "return reduce(generalized_dice(y_pred, y, weight_type=self.weight_type))",
        "return reduce(y_pred * y)")
    assert not {f for f in static_located(tmp_path, files) if f[0] == "BRK247"}


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_the_member_break_in_the_shared_helper(tmp_path):
    assert_package_confirms(tmp_path, PACKAGE, "metkit.run", EXPECTED)
