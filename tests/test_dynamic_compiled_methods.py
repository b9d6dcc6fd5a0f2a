"""`breakscan_examples` may yield a bound method the user compiled with `@torch.compile` on the
method: the dynamic pass compiles the method under it (compiling the bound wrapper again fails
on torch 2.13: "compile_wrapper already has a get_compiler_config attribute"), so the breaks in it
are confirmed instead of one BRK902 for the whole file."""

from __future__ import annotations

import pytest

from tests.conftest import break_statuses, cli_findings, requires_torch, write_files

pytestmark = [pytest.mark.dynamic, pytest.mark.versions, requires_torch]

SOURCE = '''
import torch


class Sampler:
    def __init__(self):
        self.net = torch.nn.Linear(4, 4)

    @torch.compile(backend="eager")
    def sample(self, x, steps):
        for _ in range(steps):
            x = self.net(x)
        return x, x.sum().item()


def breakscan_examples():
    yield Sampler().sample, (torch.randn(2, 4), 2)
'''


def test_a_compiled_bound_method_is_run(tmp_path):
    write_files(tmp_path, {"sampler.py": SOURCE})
    findings = cli_findings(tmp_path, "check", "sampler.py", "--show-refuted", cache=tmp_path / "cache")
    assert not [f for f in findings if f["rule_id"] == "BRK902"], findings
    assert ("BRK102", "sampler.py", 13, "confirmed") in break_statuses(findings), findings
