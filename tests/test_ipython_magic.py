"""Notebooks, dynamic: `%load_ext breakscan` and `%%breakscan`, driven through IPython's own
InteractiveShell with real Dynamo: the cell runs with the kernel's objects, its graph breaks and
recompiles print as the terminal report does, and nothing of Dynamo's leaks into later cells."""

from __future__ import annotations

import logging
import re
import subprocess
import sys

import pytest

from tests.conftest import requires_torch

pytestmark = [requires_torch, pytest.mark.dynamic, pytest.mark.versions]
IPython = pytest.importorskip("IPython")


@pytest.fixture
def shell():
    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()
    ip.run_cell("%load_ext breakscan", store_history=True).raise_error()
    ip.run_cell("import torch", store_history=True).raise_error()
    yield ip
    ip.user_ns.pop("helper", None)


def run(ip, cell: str):
    result = ip.run_cell(cell, store_history=True)
    return result


def test_cell_with_an_item_break_prints_it_at_the_cells_line(shell, capsys):
    run(shell, "def helper(x):\n    return x * 2\ncount = 1\nruns = []").raise_error()  # an earlier cell's objects
    result = run(shell, "%%breakscan\ndef scale(x):\n    return x * x.sum().item()\n"
                        "y = helper(scale(torch.ones(3)))\ncount = count + 1\nruns.append(1)\ny.sum()")
    result.raise_error()
    assert shell.user_ns["count"] == 2  # the cell read the earlier `count` and left its own
    assert shell.user_ns["runs"] == [1]  # run once: no second call for a fullgraph check
    out = capsys.readouterr().out
    number = re.search(r"Out\[(\d+)\]", out).group(1)  # the cell's In [N] number
    # `x.sum().item()`, line 3 of the cell as Jupyter numbers it (line 1: `%%breakscan`)
    assert f"cell_{number}.py:3:16 GB0124 [observed]" in out
    assert "> 3 |     return x * x.sum().item()" in out
    assert "Dynamic pass ran with torch" in out
    assert float(result.result) == 18.0  # the last expression is the cell's value
    assert float(shell.user_ns["y"].sum()) == 18.0  # names the cell binds are in the namespace


def test_cell_with_a_recompile_prints_the_guard_failure(shell, capsys):
    run(shell, "%%breakscan\ndef step(x):\n    torch._dynamo.graph_break()\n    return x * 2\n"
               "for n in (2, 3):\n    step(torch.ones(n))").raise_error()
    out = capsys.readouterr().out
    assert "BRK510 [observed] Recompiled `step`" in out
    assert "size mismatch at index 0. expected 2, actual 3" in out
    # The resume functions and compiled graphs Dynamo installed as globals are gone with the code.
    assert not [name for name in shell.user_ns if name.startswith(("__compiled_fn", "__resume_at", "__builtins_dict__"))]


def test_dynamo_config_and_state_do_not_leak_into_later_cells(shell, capsys):
    import torch

    config = torch._dynamo.config
    before = config.get_config_copy()
    from torch._logging import _internal

    names = ("torch", "torch._dynamo", "torch.__trace", "torch._dynamo.__graph_breaks", "torch._dynamo.__recompiles")
    loggers = lambda: {n: (list(logging.getLogger(n).handlers), logging.getLogger(n).level,  # noqa: E731
                           logging.getLogger(n).propagate) for n in names}
    handlers, artifacts = loggers(), set(_internal.log_state.artifact_names)
    run(shell, "%%breakscan\n"
               "torch._dynamo.config.capture_scalar_outputs = True\n"
               "torch._dynamo.config.reorderable_logging_functions.add(print)\n"
               "def item(x):\n    return x.sum().item()\n"
               "item(torch.ones(2))").raise_error()
    capsys.readouterr()
    assert config.get_config_copy() == before
    assert print not in config.reorderable_logging_functions
    assert loggers() == handlers and set(_internal.log_state.artifact_names) == artifacts
    fn = shell.user_ns["item"]
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list

    assert _debug_get_cache_entry_list(fn.__code__) == []  # compiled code and guards were reset
    installed = ("__compiled_fn", "__resume_at", "__builtins_dict__")
    assert not [name for name in shell.user_ns if name.startswith(installed)]  # nor Dynamo's globals
    # A later plain cell compiles with the kernel's own settings: `.item()` breaks again.
    run(shell, "from torch._dynamo.utils import counters\ncounters.clear()\n"
               "torch.compile(item, backend='eager')(torch.ones(2))\n"
               "breaks = sum(counters['graph_break'].values())").raise_error()
    assert shell.user_ns["breaks"] == 1
    # A second %%breakscan cell starts from the kernel's config too, not the first cell's (the
    # saved copy is deep-copied again at each restore: load_config keeps what it is given).
    run(shell, "%%breakscan\ninside = print in torch._dynamo.config.reorderable_logging_functions").raise_error()
    assert shell.user_ns["inside"] is False


def test_error_in_the_cell_is_reported_then_raised_as_in_a_plain_cell(shell, capsys):
    result = run(shell, "%%breakscan\nraise ValueError('boom')")
    assert isinstance(result.error_in_exec, ValueError)
    assert "BRK902" in capsys.readouterr().out


def test_importing_breakscan_loads_neither_torch_nor_ipython():
    code = "import sys, breakscan; print('torch' in sys.modules, 'IPython' in sys.modules, " \
           "callable(breakscan.load_ipython_extension))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False", "True"]


def test_names_the_cell_deletes_are_deleted_from_the_namespace(shell, capsys):
    run(shell, "scratch = 1\nkept = 2").raise_error()
    run(shell, "%%breakscan\ndel scratch\nkept = kept + 1\nnew = torch.ones(2).sum().item()").raise_error()
    capsys.readouterr()
    assert "scratch" not in shell.user_ns and shell.user_ns["kept"] == 3 and shell.user_ns["new"] == 2.0
