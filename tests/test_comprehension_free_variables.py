"""A comprehension run by a skipped frame is traced as a frame of its own when one of its free
variables holds a tensor (Dynamo's `has_tensor_in_frame` reads the frame's locals, free variables
included), not only when it names `self` or a torch module: then Dynamo cannot step the list
iterator it is given (GB4347, BRK406). Measured on 2.13 through the CLI on a user package with a
relative import and unannotated helpers: the comprehension over a list of tensors breaks, those
over strings and ints do not."""

from __future__ import annotations

import sys

import pytest

from tests.conftest import break_statuses, cli_findings, requires_torch, write_files

needs_comprehension_frames = pytest.mark.skipif(
    sys.version_info >= (3, 12), reason="Python 3.12 inlines comprehensions (PEP 709)")

PACKAGE = {
    "mixer/__init__.py": "",
    "mixer/prep.py": '''
        def prepare(lin, xs):
            out = []
            for a in xs:
                if a.sum() > 0:
                    out.append(lin(a))
                else:
                    out.append(a)
            return out
        ''',
    "mixer/model.py": '''
        import torch
        from torch import nn

        from .prep import prepare


        class Mixer(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(4, 4)

            def forward(self, x, y):
                try:
                    outs = prepare(self.lin, [x, y])
                    order = list(range(len(outs)))
                    outs = [outs[i] for i in order]
                    names = ["a", "b"]
                    tags = [n + "x" for n in names]
                    k = len(tags)
                    scaled = [k * i for i in order]
                finally:
                    pass
                return outs[0] + scaled[0]


        def breakscan_examples():
            yield Mixer(), (torch.randn(2, 4), torch.randn(2, 4))
        ''',
}
EXPECTED = {("BRK101", "prep.py", 5), ("BRK406", "model.py", 17)}


@needs_comprehension_frames
def test_a_comprehension_reading_a_list_of_tensors_is_predicted(tmp_path):
    write_files(tmp_path, PACKAGE)
    found = break_statuses(cli_findings(tmp_path, "check", "mixer", "--no-dynamic", "--no-cache"))
    assert {f[:3] for f in found} == EXPECTED  # not the comprehensions over strings (19) or ints (21)


@requires_torch
@needs_comprehension_frames
def test_dynamo_breaks_only_in_the_comprehension_reading_tensors(tmp_path):
    write_files(tmp_path, PACKAGE)
    found = break_statuses(cli_findings(tmp_path, "check", "mixer", "--show-refuted", cache=tmp_path / "cache"))
    assert found == {(*f, "confirmed") for f in EXPECTED}
