"""A helper decorated with a grad or autocast mode (`@torch.no_grad()`, `@torch.inference_mode()`,
`@torch.autocast(...)`) takes its parameters' kinds from its calls, like an undecorated one:
the decorator passes the arguments through and Dynamo traces the body with them. From a new
diffusers dev case (HiDream's `moe_infer`, `@torch.no_grad()`, whose `bincount` broke unseen).
Checked with `breakscan run` against Dynamo on 2.13 and 2.15."""

from __future__ import annotations

import pytest

from tests.conftest import assert_script_confirms, requires_torch, rule_lines, static_findings

SOURCE = '''
    import torch
    from torch import nn


    class Gate(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Linear(4, 3)

        def forward(self, x):
            return self.w(x).topk(1, dim=-1)


    class MoE(nn.Module):
        def __init__(self):
            super().__init__()
            self.gate = Gate()

        def forward(self, x):
            _, idx = self.gate(x)
            return self.route(x, idx.view(-1))

        @torch.no_grad()
        def route(self, x, flat):
            counts = flat.bincount()
            return x * counts.sum()


    def main():
        model = torch.compile(MoE(), backend="eager")
        for _ in range(2):
            model(torch.randn(5, 4))


    if __name__ == "__main__":
        main()
    '''


@pytest.mark.parametrize("decorator", ["@torch.no_grad()", "@torch.inference_mode()", "@torch.enable_grad()",
                                       "@torch.autocast('cpu')"])
def test_a_grad_mode_decorated_helper_takes_its_callers_kinds(tmp_path, decorator):
    source = SOURCE.replace("@torch.no_grad()", decorator)
    assert rule_lines(static_findings(tmp_path, {"train.py": source})) == {("BRK105", 26)}


def test_another_decorator_still_hides_the_callers(tmp_path):
    source = SOURCE.replace("@torch.no_grad()", "@functools.lru_cache()").replace("import torch\n", "import functools\n    import torch\n", 1)
    assert ("BRK105", 27) not in rule_lines(static_findings(tmp_path, {"train.py": source}))


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_agrees(tmp_path):
    assert_script_confirms(tmp_path, SOURCE, {("BRK105", 26)})
