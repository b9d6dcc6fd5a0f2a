"""Generic project functions (PEP 484): a call binds the TypeVars of the callee's return annotation
from its arguments, in a user's package with relative imports, driven through `breakscan run`
(static pass and Dynamo on the same lines, 2.13 and 2.15):
- `boxes_t, *_ = to_type(boxes, torch.Tensor)` with `output_type: type[T] | None` and
  `-> tuple[T, type]`: `boxes_t` is a tensor (the names around a starred target take the tuple's
  element kinds one by one);
- `out, _ = like(src, dst=limit)` with `dst: T`: `out` is what `limit` is, a tensor;
- `arr = to_type(values, np.ndarray)[0]`: one element of the tuple, a NumPy array, which Dynamo
  traces as a tensor (`arr.max() > 100` breaks, GB0170, from the dev miss of MONAI's
  `percentile`, which converts `q` with `convert_data_type(q, output_type=np.ndarray)[0]`).
The converter dispatches on `issubclass(output_type, ...)` through helpers returning `Any`, so
its body alone says nothing; a call with another class (`to_type(x, list)`) binds nothing
known and its result is not flagged.
"""

from __future__ import annotations

import pytest

from tests.conftest import (
    assert_dynamo_confirms,
    break_statuses,
    requires_torch,
    rule_lines,
    run_findings,
    static_findings,
    write_files,
)

PACKAGE = {
    "medkit/__init__.py": "",
    "medkit/typing_defs.py": '''\
        from typing import TypeVar

        import numpy as np
        import torch

        ArrayOrTensor = TypeVar("ArrayOrTensor", np.ndarray, torch.Tensor)
    ''',
    "medkit/convert.py": '''\
        from typing import Any

        import numpy as np
        import torch

        from .typing_defs import ArrayOrTensor


        def _as_tensor(data: Any, dtype=None) -> Any:
            if isinstance(data, torch.Tensor):
                return data.to(dtype=dtype) if dtype is not None else data
            if isinstance(data, (list, tuple)):
                return type(data)(_as_tensor(d) for d in data)
            return torch.as_tensor(data, dtype=dtype)


        def _as_array(data: Any) -> Any:
            if isinstance(data, torch.Tensor):
                return data.detach().cpu().numpy()
            return np.asarray(data)


        def to_type(data: Any, output_type: type[ArrayOrTensor] | None = None,
                    dtype=None) -> tuple[ArrayOrTensor, type]:
            """Convert `data` to `output_type` (its own type when None); also return the original type."""
            orig = type(data)
            if output_type is None:
                output_type = orig
            if issubclass(output_type, torch.Tensor):
                out = _as_tensor(data, dtype)
            elif issubclass(output_type, np.ndarray):
                out = _as_array(data)
            else:
                raise TypeError(f"unsupported output type {output_type}")
            return out, orig


        def like(src: Any, dst: ArrayOrTensor) -> tuple[ArrayOrTensor, type]:
            """`src` converted to the type of `dst`."""
            out, orig = to_type(src, type(dst))
            return out, orig
    ''',
    "medkit/boxes.py": '''\
        import numpy as np
        import torch

        from .convert import like, to_type


        def box_area(boxes):
            boxes_t, *_ = to_type(boxes, torch.Tensor)
            area = (boxes_t[:, 2] - boxes_t[:, 0]) * (boxes_t[:, 3] - boxes_t[:, 1])
            if area.min() < 0:
                raise ValueError("negative box area")
            return area


        def clip_like(boxes, limit):
            out, _ = like(boxes.clamp(min=0), dst=limit)
            if out.max() > 100:
                out = out / 2
            return out


        def as_array(values):
            arr = to_type(values, np.ndarray)[0]
            if arr.max() > 100:
                return values / 2
            return values


        def as_list(values):
            items, _ = to_type(values, list)
            if items:
                return values / 2
            return values
    ''',
    "train.py": '''\
        import torch

        from medkit.boxes import as_array, box_area, clip_like


        @torch.compile(backend="eager")
        def postprocess(boxes, limit):
            return clip_like(boxes, limit) * box_area(boxes)[:, None]


        if __name__ == "__main__":
            corners = torch.rand(6, 2) * 10
            postprocess(torch.cat([corners, corners + 1], dim=1), torch.ones(6, 4))
            torch.compile(as_array, backend="eager")(torch.rand(5) * 200)
    ''',
}
BREAKS = [("BRK101", "boxes.py", 10), ("BRK101", "boxes.py", 17), ("BRK101", "boxes.py", 24)]


def test_typevar_returns_bound_by_a_class_or_a_value_are_tensors(tmp_path):
    findings = static_findings(tmp_path, PACKAGE)
    in_boxes = rule_lines(f for f in findings if f.path.endswith("boxes.py"))
    assert {(rule, line) for rule, _, line in BREAKS} <= in_boxes, in_boxes
    assert not {hit for hit in in_boxes if hit[1] == 31}, in_boxes  # to_type(values, list)


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_breaks_on_typevar_bound_tensors(tmp_path):
    write_files(tmp_path, PACKAGE)
    assert_dynamo_confirms(break_statuses(run_findings(tmp_path, "train.py")), BREAKS)
