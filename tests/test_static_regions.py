"""Compile-region inference: only code Dynamo will trace is flagged."""

from __future__ import annotations

from tests.conftest import rule_lines, static_findings


def test_code_outside_any_compile_region_is_not_flagged(tmp_path):
    findings = static_findings(tmp_path, """
        import torch

        def eager_helper(x):
            return x.sum().item()
    """)
    assert findings == []


def test_decorated_function_is_a_region_with_its_chain(tmp_path):
    findings = static_findings(tmp_path, """
        import torch

        @torch.compile(mode="reduce-overhead")
        def step(x: torch.Tensor):
            return x * x.max().item()
    """)
    assert rule_lines(findings) == {("BRK102", 6)}
    assert findings[0].chain == ("step",)


def test_forward_and_its_helpers_across_methods_and_functions(tmp_path):
    findings = static_findings(tmp_path, """
        import torch
        from torch import nn

        def norm(t: torch.Tensor):
            return t / t.norm().item()

        class Block(nn.Module):
            def forward(self, x):
                return self.scale(x)

            def scale(self, x: torch.Tensor):
                return norm(x) * x.mean().item()
    """)
    assert rule_lines(findings) == {("BRK102", 6), ("BRK102", 13)}
    chains = {f.line: f.chain for f in findings}
    assert chains[6] == ("Block.forward", "Block.scale", "norm")


def test_explicit_mode_roots_only_at_compile_targets(tmp_path):
    source = """
        import torch
        from torch import nn

        class Block(nn.Module):
            def forward(self, x):
                return x * x.sum().item()

        class Other(nn.Module):
            def forward(self, x):
                return x * x.sum().item()

        model = torch.compile(Block())
    """
    assert rule_lines(static_findings(tmp_path, source, regions="explicit")) == {("BRK102", 7)}
    assert rule_lines(static_findings(tmp_path, source, regions="modules")) == {("BRK102", 7), ("BRK102", 11)}


def test_compile_target_variable_and_submodules_across_files(tmp_path):
    findings = static_findings(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/layers.py": """
            import torch
            from torch import nn

            class Inner(nn.Module):
                def forward(self, x):
                    return x * x.sum().item()
        """,
        "pkg/model.py": """
            import torch
            from torch import nn
            from .layers import Inner

            class Outer(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.blocks = nn.ModuleList([Inner() for _ in range(2)])

                def forward(self, x):
                    for block in self.blocks:
                        x = block(x)
                    return x

            model = Outer()
            compiled = torch.compile(model)
        """,
    }, regions="explicit")
    assert rule_lines(findings) == {("BRK102", 7)}
    assert findings[0].chain == ("Outer.forward", "Inner.forward")


def test_disabled_function_ends_the_region(tmp_path):
    findings = static_findings(tmp_path, """
        import torch

        @torch.compiler.disable
        def debug(x):
            return x.sum().item()

        @torch.compile
        def f(x):
            return debug(x) + 1
    """)
    assert ("BRK102", 6) not in rule_lines(findings)


def test_branch_under_is_compiling_is_understood(tmp_path):
    findings = static_findings(tmp_path, """
        import torch

        @torch.compile
        def f(x):
            if not torch.compiler.is_compiling():
                x = x * x.sum().item()
            if torch.compiler.is_compiling():
                return x
            else:
                return x * x.sum().item()
    """)
    assert findings == []


def test_breakscan_examples_targets_are_regions(tmp_path):
    findings = static_findings(tmp_path, """
        import torch

        def step(x):
            return x * x.sum().item()

        def breakscan_examples():
            yield step, (torch.ones(2),)
    """, regions="explicit")
    assert rule_lines(findings) == {("BRK102", 5)}


def test_sequential_moduledict_and_compiled_forward_attribute(tmp_path):
    findings = static_findings(tmp_path, """
        import torch
        from torch import nn

        class A(nn.Module):
            def forward(self, x):
                return x * x.sum().item()

        class B(nn.Module):
            def forward(self, x):
                return x * x.mean().item()

        class C(nn.Module):
            def forward(self, x):
                return x * x.max().item()

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.seq = nn.Sequential(A(), nn.ReLU())
                self.heads = nn.ModuleDict({"b": B()})

            def forward(self, x):
                return self.heads["b"](self.seq(x))

        class Unused(nn.Module):
            def forward(self, x):
                return x * x.min().item()

        net = Net()
        fast = torch.compile(net.forward)
        other = C()
        other.compile()
    """, regions="explicit")
    assert rule_lines(findings) == {("BRK102", 7), ("BRK102", 11), ("BRK102", 15)}


def test_nested_functions_and_lambdas_inside_a_region_are_checked(tmp_path):
    findings = static_findings(tmp_path, """
        import torch

        @torch.compile
        def f(x):
            def inner(t: torch.Tensor):
                return t.sum().item()
            g = lambda t: print(t)
            g(x)
            return inner(x)
    """)
    assert rule_lines(findings) == {("BRK102", 7), ("BRK201", 8)}


def test_disable_call_form_and_project_is_compiling_helper(tmp_path):
    findings = static_findings(tmp_path, {
        "helpers.py": """
            import torch

            def in_compile():
                \"\"\"Project helper, like transformers' is_torchdynamo_compiling.\"\"\"
                return torch.compiler.is_compiling()

            def _log(x):
                return x.sum().item()

            log_stats = torch.compiler.disable(_log)
        """,
        "model.py": """
            import torch
            from helpers import in_compile, log_stats

            @torch.compile
            def f(x):
                if not in_compile():
                    print("eager only")
                log_stats(x)
                return x
        """,
    })
    assert rule_lines(findings) == {("BRK208", 9)}
