"""A `torch.compiler.disable` wrapper returned by a project function (`def make_logger(): return
torch.compiler.disable(log_stats)`) and bound where the wrapper is used: `LOG = make_logger()` at
module level, `self.log = make_logger()` in `__init__`. Dynamo 2.13 skips the wrapped function at
each call (GB0098: BRK208), and never traces its body; a factory returning the plain function is
traced as usual. Through the CLI on a user package with a relative import."""

from __future__ import annotations

from tests.conftest import break_statuses, cli_findings, requires_torch, write_files

PACKAGE = {
    "obs/__init__.py": "",
    "obs/hooks.py": '''
        import torch


        def log_stats(x):
            print("stats", x.mean())
            return x


        def make_logger():
            return torch.compiler.disable(log_stats)


        def make_plain():
            return log_stats
        ''',
    "obs/model.py": '''
        import torch
        from torch import nn

        from .hooks import make_logger

        LOG = make_logger()


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(4, 4)
                self.log = make_logger()

            def forward(self, x):
                y = self.lin(x)
                y = self.log(y)
                return LOG(y) + 1


        def breakscan_examples():
            yield Net(), (torch.randn(2, 4),)
        ''',
}
EXPECTED = {("BRK208", "model.py", 18), ("BRK208", "model.py", 19)}


def test_calls_of_a_disable_wrapper_made_by_a_factory_break(tmp_path):
    write_files(tmp_path, PACKAGE)
    found = break_statuses(cli_findings(tmp_path, "check", "obs", "--no-dynamic", "--no-cache"))
    assert {f[:3] for f in found} == EXPECTED  # the print in log_stats is never traced


@requires_torch
def test_dynamo_skips_the_factory_made_wrapper(tmp_path):
    write_files(tmp_path, PACKAGE)
    found = break_statuses(cli_findings(tmp_path, "check", "obs", "--show-refuted", cache=tmp_path / "cache"))
    assert found == {(*f, "confirmed") for f in EXPECTED}
