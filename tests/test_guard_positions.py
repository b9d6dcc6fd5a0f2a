"""The guard of an operand in a chain of three (`isinstance(d, np.ndarray) and d.ndim > 0 and
d.dtype.itemsize < 4`) is the inner `a and b`, which CPython's ast has no node for (it flattens
the chain). Located by its text, it matched another `a and b` of the same function, so the
finding's `extra.guard_lines` named the wrong line and the merge refuted a prediction that never
ran (found on MONAI's `convert_to_numpy`, BRK270 on a 0-dim array). positions.Locator now asks
libcst for a boolean operation's position."""

from __future__ import annotations

from tests.conftest import static_findings

SOURCE = '''
import numpy as np
import torch


@torch.compile(backend="eager")
def to_numpy(data):
    if isinstance(data, np.ndarray) and data.ndim > 0 and data.dtype.itemsize < 4:
        data = data.astype(np.float32)
    if isinstance(data, np.ndarray) and data.ndim > 0:
        data = np.ascontiguousarray(data)
    return data
'''


def test_the_guard_of_a_chained_operand_is_its_own_line(tmp_path):
    found = [f for f in static_findings(tmp_path, {"train.py": SOURCE}) if f.rule_id == "BRK270"]
    assert [(f.line, f.extra.get("guard_lines")) for f in found] == [(8, [8])]
