"""Dynamo settings (torch._dynamo.config, patch, env vars, [tool.breakscan] dynamo-config,
fullgraph=True) silence the findings Dynamo would not break on; driven through the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import requires_torch

BREAKSCAN = str(Path(sys.executable).with_name("breakscan"))


def scan(tmp_path: Path, files: dict[str, str], *args: str, env: dict[str, str] | None = None,
         dynamic: bool = False) -> tuple[int, dict | str]:
    """Write the user's files in a fresh directory and run `breakscan` there like a user."""
    for name, source in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source).lstrip(), encoding="utf-8")
    run_env = {k: v for k, v in os.environ.items() if not k.startswith("TORCHDYNAMO_")}
    run_env.update(env or {})
    cmd = [BREAKSCAN, *files.keys(), "--format", "json", *args]
    if not dynamic:
        cmd.append("--no-dynamic")
    proc = subprocess.run(cmd, cwd=tmp_path, env=run_env, capture_output=True, text=True, timeout=600)
    try:
        return proc.returncode, json.loads(proc.stdout)
    except ValueError:
        return proc.returncode, proc.stdout + proc.stderr


def rules_of(report: dict) -> list[tuple[str, int]]:
    return sorted((f["rule_id"], f["line"]) for f in report["findings"])


ITEM = """
@torch.compile
def scale(x):
    return x * x.sum().item()
"""


def test_default_item_breaks(tmp_path):
    _, report = scan(tmp_path, {"m.py": "import torch\n" + ITEM})
    assert rules_of(report) == [("BRK102", 5)]


@pytest.mark.parametrize("header", [
    "import torch\ntorch._dynamo.config.capture_scalar_outputs = True\n",
    "import torch\nimport torch._dynamo.config as dcfg\ndcfg.capture_scalar_outputs = True\n",
    "import torch\nfrom torch._dynamo import config\nconfig.capture_scalar_outputs = True\n",
    "import torch\nimport torch._dynamo\nif True:\n    torch._dynamo.config.capture_scalar_outputs = True\n",
    "import torch\nimport torch._dynamo as dynamo\ndynamo.config.capture_scalar_outputs = True\n",
    "import torch\nfrom torch._dynamo import (\n    config,\n)\nconfig.capture_scalar_outputs = True\n",
])
def test_module_level_assignment_and_aliases_silence_item(tmp_path, header):
    _, report = scan(tmp_path, {"m.py": header + ITEM})
    assert rules_of(report) == []


def test_assignment_to_false_or_another_setting_does_not_silence(tmp_path):
    header = ("import torch\ntorch._dynamo.config.capture_scalar_outputs = False\n"
              "torch._dynamo.config.capture_dynamic_output_shape_ops = True\n")
    _, report = scan(tmp_path, {"m.py": header + ITEM})
    assert [r for r, _ in rules_of(report)] == ["BRK102"]


def test_setting_in_the_file_that_compiles_applies_to_a_model_in_another(tmp_path):
    files = {
        "model.py": """
            import torch


            class Net(torch.nn.Module):
                def forward(self, x):
                    return x * x.sum().item()
            """,
        "train.py": """
            import torch
            from model import Net

            torch._dynamo.config.capture_scalar_outputs = True
            net = torch.compile(Net())
            """,
    }
    _, report = scan(tmp_path, files, "--regions", "explicit")
    assert rules_of(report) == []
    _, alone = scan(tmp_path, {"model.py": files["model.py"]})
    assert [r for r, _ in rules_of(alone)] == ["BRK102"]


def test_patch_decorator_above_compile_silences_below_does_not(tmp_path):
    source = """
        import torch
        import torch._dynamo.config


        @torch._dynamo.config.patch(capture_scalar_outputs=True)
        @torch.compile
        def above(x):
            return x * x.sum().item()


        @torch.compile
        @torch._dynamo.config.patch(capture_scalar_outputs=True)
        def below(x):
            return x * x.sum().item()
        """
    _, report = scan(tmp_path, {"m.py": source})
    assert rules_of(report) == [("BRK102", 14)]  # measured on 2.13: only the outer patch applies


def test_patch_decorator_on_a_caller_and_patch_context_manager(tmp_path):
    source = """
        import torch
        from torch._dynamo import config


        def f(x):
            return torch.nonzero(x)


        def g(x):
            return x * x.sum().item()


        def h(x):
            return x * x.sum().item()


        opt_f = torch.compile(f)
        opt_g = torch.compile(g)
        opt_h = torch.compile(h)


        @config.patch({"capture_dynamic_output_shape_ops": True})
        def run_f(x):
            return opt_f(x)


        def run_g(x):
            with config.patch("capture_scalar_outputs", True):
                return opt_g(x)


        def run_h(x):
            with config.patch(capture_scalar_outputs=True):
                h2 = torch.compile(h)  # compiled inside, called outside: not patched (measured)
            return opt_h(x)
        """
    _, report = scan(tmp_path, {"m.py": source}, "--regions", "explicit")
    assert rules_of(report) == [("BRK102", 14)]


@pytest.mark.parametrize("value,expected", [("1", []), ("0", ["BRK102"])])
def test_environment_variable_of_the_scan(tmp_path, value, expected):
    _, report = scan(tmp_path, {"m.py": "import torch\n" + ITEM},
                     env={"TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS": value})
    assert [r for r, _ in rules_of(report)] == expected


def test_environment_variable_set_in_the_file(tmp_path):
    header = 'import os\nos.environ["TORCHDYNAMO_CAPTURE_DYNAMIC_OUTPUT_SHAPE_OPS"] = "1"\nimport torch\n'
    source = header + "\n\n@torch.compile\ndef f(x):\n    return torch.nonzero(x), x * x.sum().item()\n"
    _, report = scan(tmp_path, {"m.py": source})
    assert [r for r, _ in rules_of(report)] == ["BRK102"]


def test_pyproject_dynamo_config_table(tmp_path):
    source = """
        import logging

        import torch

        log = logging.getLogger(__name__)


        @torch.compile
        def f(x):
            print("step")
            logging.info("step")
            log.info("step")
            return x * x.sum().item()
        """
    _, report = scan(tmp_path, {"m.py": source})
    assert [r for r, _ in rules_of(report)] == ["BRK102", "BRK201", "BRK202", "BRK202"]
    (tmp_path / "pyproject.toml").write_text(
        "[tool.breakscan]\ndynamo-config = { capture_scalar_outputs = true, "
        'ignore_logging_functions = ["print", "logging.Logger.info"] }\n', encoding="utf-8")
    _, report = scan(tmp_path, {"m.py": source})
    assert rules_of(report) == [("BRK202", 11)]  # logging.info is not logging.Logger.info (measured)


def test_logging_sets_written_in_code(tmp_path):
    source = """
        import logging
        import warnings

        import torch

        torch._dynamo.config.reorderable_logging_functions.add(print)
        torch._dynamo.config.ignore_logging_functions |= {warnings.warn}
        torch._dynamo.config.trace_autograd_ops = True
        torch._dynamo.config.graph_break_on_nn_param_ctor = False


        @torch.compile
        def f(x):
            print("step", x, f"{x}")
            print(x.shape)  # a torch.Size argument: not reorderable (measured)
            warnings.warn("step")
            logging.warning("step")
            p = torch.nn.Parameter(torch.ones(3))
            (g,) = torch.autograd.grad((x * x).sum(), x)
            return g + p
        """
    _, report = scan(tmp_path, {"m.py": source})
    assert rules_of(report) == [("BRK201", 15), ("BRK202", 17)]


def test_unknown_setting_in_pyproject_is_a_config_error(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        "[tool.breakscan]\ndynamo-config = { capture_scalar_output = true }\n", encoding="utf-8")
    code, out = scan(tmp_path, {"m.py": "import torch\n" + ITEM})
    assert code == 2
    assert "capture_scalar_output" in str(out)


def test_fullgraph_captures_scalars_and_makes_other_breaks_errors(tmp_path):
    source = """
        import torch


        def body(x):
            n = torch.nonzero(x)
            print("hi")
            return x * x.sum().item() + n.sum()


        @torch.compile(fullgraph=True)
        def decorated(x):
            return body(x)


        compiled = torch.compile(body, fullgraph=True)
        """
    _, report = scan(tmp_path, {"m.py": source})
    findings = report["findings"]
    assert [(f["rule_id"], f["line"]) for f in findings] == [("BRK201", 6)]
    assert findings[0]["severity"] == "error"
    assert "fullgraph=True" in findings[0]["message"] and "error" in findings[0]["message"]


def test_settings_change_invalidates_the_cache(tmp_path):
    files = {"m.py": "import torch\n" + ITEM}
    _, first = scan(tmp_path, files)
    assert [r for r, _ in rules_of(first)] == ["BRK102"]
    (tmp_path / "pyproject.toml").write_text(
        "[tool.breakscan]\ndynamo-config = { capture_scalar_outputs = true }\n", encoding="utf-8")
    _, second = scan(tmp_path, files)
    assert rules_of(second) == []


# Real Dynamo agrees -----------------------------------------------------------------------------
EXAMPLES = """

def breakscan_examples():
    x = torch.tensor([1.0, -2.0, 3.0])
    yield f, (x,)
"""


@requires_torch
@pytest.mark.parametrize("source", [
    # capture_scalar_outputs set in the code: no break predicted, none observed
    "import torch\ntorch._dynamo.config.capture_scalar_outputs = True\n\n\n"
    "@torch.compile(backend='eager')\ndef f(x):\n    return x * x.sum().item()\n",
    # fullgraph=True captures .item() and nonzero
    "import torch\n\n\n@torch.compile(backend='eager', fullgraph=True)\n"
    "def f(x):\n    return x * x.sum().item() + torch.nonzero(x).sum()\n",
    # default mode: predicted and observed (confirmed)
    "import torch\n\n\n@torch.compile(backend='eager')\ndef f(x):\n    return x * x.sum().item()\n",
])
def test_real_dynamo_agrees(tmp_path, source):
    code, report = scan(tmp_path, {"m.py": source + EXAMPLES}, dynamic=True)
    check_agreement(report)


def check_agreement(report) -> None:
    assert isinstance(report, dict), report
    statuses = [(f["rule_id"], f["status"]) for f in report["findings"]]
    assert not [s for s in statuses if s[1] in ("observed", "refuted")], statuses
    assert all(s == ("BRK102", "confirmed") for s in statuses), statuses


@requires_torch
def test_real_dynamo_agrees_with_the_pyproject_table_and_targets_keep_their_own_settings(tmp_path):
    """The table is applied in the dynamic pass's child too; a file's own config writes do not
    leak into the next file run in the same child."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.breakscan]\ndynamo-config = { capture_dynamic_output_shape_ops = true, '
        'ignore_logging_functions = ["print"] }\n', encoding="utf-8")
    files = {
        "a.py": "import torch\ntorch._dynamo.config.capture_scalar_outputs = True\n\n\n"
                "@torch.compile(backend='eager')\ndef f(x):\n    return x * x.sum().item()\n" + EXAMPLES,
        "b.py": "import torch\n\n\n@torch.compile(backend='eager')\ndef f(x):\n"
                "    print('step')\n    return x * x.sum().item() + torch.nonzero(x).sum()\n" + EXAMPLES,
    }
    _, report = scan(tmp_path, files, dynamic=True)
    assert isinstance(report, dict), report
    check_agreement(report)
    assert [(f["path"], f["rule_id"]) for f in report["findings"]] == [("b.py", "BRK102")]


@pytest.mark.parametrize("fullgraph,expected", [("True", []), ("False", [("BRK102", 7)])])
def test_fullgraph_on_a_compiled_method(tmp_path, fullgraph, expected):
    source = f"""
        import torch


        class Net(torch.nn.Module):
            @torch.compile(fullgraph={fullgraph})
            def step(self, x):
                return x * x.sum().item()
        """
    _, report = scan(tmp_path, {"m.py": source}, "--regions", "explicit")
    assert rules_of(report) == expected


def test_wrong_value_type_in_pyproject_is_a_config_error(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.breakscan]\ndynamo-config = { capture_scalar_outputs = "yes", ignore_logging_functions = "print" }\n',
        encoding="utf-8")
    code, out = scan(tmp_path, {"m.py": "import torch\n" + ITEM})
    assert code == 2
    assert "capture_scalar_outputs must be true or false" in str(out)


def test_rule_file_with_a_bad_silenced_by_entry_is_rejected(tmp_path):
    from breakscan.catalog import CatalogError, load_rule, rules_dir

    text = (rules_dir() / "BRK102.toml").read_text(encoding="utf-8")
    bad = tmp_path / "BRK102.toml"
    bad.write_text(text.replace('silenced_by = ["capture_scalar_outputs"]', 'silenced_by = ["capture_scalars"]'),
                   encoding="utf-8")
    with pytest.raises(CatalogError, match="capture_scalars"):
        load_rule(bad)
    assert load_rule(rules_dir() / "BRK102.toml").silenced_by == ("capture_scalar_outputs",)


@requires_torch
@pytest.mark.parametrize("table,expected", [("", [("BRK102", "confirmed")]),
                                            ("dynamo-config = { capture_scalar_outputs = true }\n", [])])
def test_breakscan_run_applies_the_pyproject_table(tmp_path, table, expected):
    (tmp_path / "pyproject.toml").write_text("[tool.breakscan]\n" + table, encoding="utf-8")
    (tmp_path / "prog.py").write_text(
        "import torch\n\n\n@torch.compile(backend='eager')\ndef f(x):\n    return x * x.sum().item()\n\n\n"
        "f(torch.ones(3))\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TORCHDYNAMO_")}
    subprocess.run([BREAKSCAN, "run", "--format", "json", "-o", "out.json", "prog.py"], cwd=tmp_path, env=env,
                   capture_output=True, text=True, timeout=600)
    report = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert [(f["rule_id"], f["status"]) for f in report["findings"]] == expected


IMPORTED_SETTINGS = {
    "app/__init__.py": "",
    "app/setup.py": """
        import torch._dynamo

        torch._dynamo.config.capture_scalar_outputs = True


        def more_settings():
            torch._dynamo.config.capture_dynamic_output_shape_ops = True
        """,
    "app/model.py": """
        import torch


        class Net(torch.nn.Module):
            def forward(self, x):
                scale = x.sum().item()
                return x[torch.nonzero(x > 0).squeeze(1)] * scale
        """,
    "app/train.py": """
        import torch

        from . import setup
        from .model import Net

        net = torch.compile(Net(), backend="eager")


        def main():
            net(torch.randn(6))


        if __name__ == "__main__":
            main()
        """,
}


def test_settings_written_at_import_of_a_module_the_compiling_file_imports(tmp_path):
    """`from . import setup` runs setup's module-level config write before the compile, so
    `.item()` is captured; the write inside `more_settings()` (never called) does not apply."""
    _, report = scan(tmp_path, IMPORTED_SETTINGS, "--regions", "explicit")
    assert [r for r, _ in rules_of(report)] == ["BRK105"], report
    imported = {**IMPORTED_SETTINGS, "app/train.py": IMPORTED_SETTINGS["app/train.py"].replace(
        "        from . import setup\n", "")}
    _, alone = scan(tmp_path / "alone", imported, "--regions", "explicit")
    assert sorted(r for r, _ in rules_of(alone)) == ["BRK102", "BRK105"], alone


@pytest.mark.parametrize("regions", ["modules", "explicit"])
def test_settings_written_at_import_of_the_package(tmp_path, regions):
    """`app/__init__.py` imports `setup`: importing `app.model` runs it first, so its write holds
    for `Net.forward` whether it is its own root (`--regions modules`) or reached from `run`."""
    train = '''
        import torch

        from .model import Net

        net = Net()


        @torch.compile(backend="eager")
        def run(x):
            return net(x)
        '''
    files = {**IMPORTED_SETTINGS, "app/__init__.py": "from . import setup  # noqa: F401\n", "app/train.py": train}
    _, report = scan(tmp_path, files, "--regions", regions)
    assert [r for r, _ in rules_of(report)] == ["BRK105"], report


@pytest.mark.versions
@requires_torch
def test_settings_written_at_import_agree_with_dynamo(tmp_path):
    for name, source in IMPORTED_SETTINGS.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source).lstrip(), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TORCHDYNAMO_")}
    proc = subprocess.run([BREAKSCAN, "run", "--format", "json", "-o", "out.json", "-m", "app.train"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    report = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert [(f["rule_id"], f["status"]) for f in report["findings"]] == [("BRK105", "confirmed")], \
        (report["findings"], proc.stderr[-2000:])
