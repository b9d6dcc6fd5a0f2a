"""`threading.local()` (GB0147, a C class Dynamo cannot call) and `threading.Lock()` (GB0007)
inside a compiled function break the graph, as BRK214's other C helpers do; a transform that
makes its thread-local state lazily (MONAI's `_init_trace_threadlocal`) breaks there. Making an
`RLock` or an `Event` does not. Checked with `breakscan run` on 2.13 and 2.15."""

from __future__ import annotations

import pytest

from tests.conftest import assert_script_confirms, requires_torch, rule_lines, static_findings

SOURCE = '''
    import threading

    import torch
    from torch import nn


    class Traced(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(4, 4)

        def _state(self):
            if not hasattr(self, "_tracing"):
                self._tracing = threading.local()
            return self._tracing

        def forward(self, x):
            self._state()
            return self.proj(x)


    def guarded(x):
        lock = threading.Lock()
        return x * 2, lock


    def main():
        x = torch.randn(2, 4)
        torch.compile(Traced(), backend="eager")(x)
        torch.compile(guarded, backend="eager")(x)


    if __name__ == "__main__":
        main()
    '''

EXPECTED = {("BRK214", 15), ("BRK214", 24)}


def test_threading_helpers_are_predicted(tmp_path):
    found = rule_lines(static_findings(tmp_path, SOURCE))
    assert EXPECTED <= found


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms(tmp_path):
    assert_script_confirms(tmp_path, SOURCE, EXPECTED)
