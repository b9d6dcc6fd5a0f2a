"""Dynamo log parsing and guard classification, on texts captured from torch 2.13 (no torch needed)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from breakscan.dynamic import guards, parse
from breakscan.dynamic.runner import guard_subject

BREAK_TEMPLATE = """\
Graph break in user code at {path}:2
Graph Break Reason: Encountered graph break when attempting to trace CALL: a function call, e.g. f(x, y):

Unsupported Tensor.item() call with capture_scalar_outputs=False
  Explanation: Dynamo does not support tracing `Tensor.item()` with config.capture_scalar_outputs=False.
  Hint: Set `torch._dynamo.config.capture_scalar_outputs = True` to include these operations in the captured graph.

  Developer debug context: call_method TensorVariable() item () {{}}

 For more details about this graph break, please visit: https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0124.html

User code traceback:
  File "/x/probe.py", line 15, in <module>
    torch.compile(u, backend="eager")(torch.ones(2))
  File "{path}", line 2, in torch_dynamo_resume_in_u_at_1
    é = "ü"; y = x.sum().item()
                 ^^^^^^^^^^^^^^

Traceback (most recent call last):
  File "/venv/torch/_dynamo/symbolic_convert.py", line 1076, in wrapper
"""

BRANCH = """\
Graph break in user code at /p/m.py:15
Graph Break Reason: Data-dependent branching
  Explanation: Detected data-dependent branching (e.g. `if my_tensor.sum() > 0:`). Dynamo does not support tracing dynamic control flow.

      The branch condition involves a tensor computed as follows:
        gt = gt(sum_1, 0)
  Hint: Use `torch.cond` to express dynamic control flow.

 For more details about this graph break, please visit: https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0170.html
"""

RECOMPILE = """\
Recompiling function forward in /tmp/exp/s5.py:35
    triggered by the following guard failure(s):
    - 0/1: s.scale == 1                                             # return s.lin(x) * s.scale  # mp/exp/s5.py:37 in forward (HINT: torch.compile considers integer attributes of the nn.Module to be static.)
    - User stack trace:
    -   File "/tmp/exp/s5.py", line 37, in forward
    -     return s.lin(x) * s.scale
    - 0/0: s.training == True                                       # if s.training: x = x * 2  # mp/exp/s5.py:36 in forward
"""

LIMIT = """\
torch._dynamo hit config.recompile_limit (8)
   function: 'b' (/tmp/exp/s6.py:11)
   last reason: 0/7: flag == 'h'                                              # if flag == "q": return x + 1  # mp/exp/s6.py:12 in b
User stack trace:
  File "/tmp/exp/s6.py", line 12, in b
    if flag == "q": return x + 1
To log all recompilation reasons, use TORCH_LOGS="recompiles".
"""


def test_break_message_fields_and_column_in_code_points(tmp_path: Path) -> None:
    src = tmp_path / "u.py"
    src.write_text('def u(x):\n    é = "ü"; y = x.sum().item()\n', encoding="utf-8")
    ev = parse.parse_graph_break(BREAK_TEMPLATE.format(path=src))
    assert ev is not None
    assert ev["gb_id"] == "GB0124" and ev["gb_type"].startswith("Unsupported Tensor.item()")
    assert ev["explanation"].startswith("Dynamo does not support") and len(ev["hints"]) == 1
    inner = ev["stack"][-1]
    assert (inner["line"], inner["function"]) == (2, "u")  # resume function mapped back
    line = src.read_text(encoding="utf-8").splitlines()[1]
    assert inner["column"] == line.index("x.sum()") + 1
    assert inner["end_column"] == line.index("x.sum()") + len("x.sum().item()") + 1
    assert not ev["fallback"] and not ev["duplicate"]


def test_break_type_on_reason_line_and_multiline_explanation() -> None:
    ev = parse.parse_graph_break(BRANCH)
    assert ev is not None and ev["gb_type"] == "Data-dependent branching" and ev["gb_id"] == "GB0170"
    assert "branch condition" in ev["explanation"] and ev["hints"] == ["Use `torch.cond` to express dynamic control flow."]


def test_not_a_break() -> None:
    assert parse.parse_graph_break("Recompiling function f in a.py:1") is None


def test_recompile_failures_with_source_and_hint() -> None:
    ev = parse.parse_recompile(RECOMPILE)
    assert ev is not None and ev["function"] == "forward" and ev["line"] == 35
    first, second = ev["failures"]
    assert first["guard"] == "s.scale == 1" and first["source_path"] == "/tmp/exp/s5.py"
    assert first["source_line"] == 37 and "integer attributes" in first["hint"]
    assert second["guard"] == "s.training == True"
    assert second["source_path"] == "" and second["source_path_tail"] == "mp/exp/s5.py" and second["source_line"] == 36
    assert parse.resolve_tail("mp/exp/s5.py", ["/a/b.py", "/tmp/exp/s5.py"]) == "/tmp/exp/s5.py"


def test_recompile_limit() -> None:
    ev = parse.parse_recompile_limit(LIMIT)
    assert ev is not None and ev["limit"] == 8 and ev["function"] == "b" and ev["line"] == 11
    [last] = ev["failures"]
    assert last["guard"] == "flag == 'h'" and (last["source_path"], last["source_line"]) == ("/tmp/exp/s6.py", 12)


def test_trace_source_and_resume_names() -> None:
    assert parse.parse_trace_source("TRACE starts_line /a/b c.py:12 in f (f)\n    x = 1") == ("/a/b c.py", 12)
    assert parse.original_function("torch_dynamo_resume_in_forward_at_14") == "forward"
    assert parse.is_resume("torch_dynamo_resume_in_f_at_3") and not parse.is_resume("f")


def test_def_line_skips_decorators(tmp_path: Path) -> None:
    src = tmp_path / "d.py"
    src.write_text("@torch.compile(\n    backend='eager',\n)\ndef f(x):\n    return x\n", encoding="utf-8")
    assert parse.def_line(str(src), 1) == 4
    assert parse.def_line(str(src), 4) == 4
    assert parse.find_def_before(str(src), 5, "f") == 4


def test_byte_offset_to_code_point_column() -> None:
    line = 'é = "ü"; y = x.item()'
    assert parse.byte_col_to_char_col(line, len(line[:9].encode())) == 10


@pytest.mark.parametrize(
    ("guard", "cls"),
    [
        ("tensor 'x' size mismatch at index 0. expected 2, actual 3", "shape"),
        ("tensor 'x' stride mismatch at index 0. expected 3, actual 1", "stride"),
        ("tensor 'x' rank mismatch. expected 1, actual 2", "rank"),
        ("tensor 'x' dtype mismatch. expected Float, actual Double", "dtype"),
        ("tensor 'x' requires_grad mismatch. expected requires_grad=0", "requires_grad"),
        ("tensor 'x' dispatch key set mismatch. expected DispatchKeySet(CPU), actual DispatchKeySet(Meta)", "device"),
        ("n == 2", "scalar_value"),
        ("flag == 'a'", "scalar_value"),
        ("args[1] == 'mode0'", "scalar_value"),
        ("o.k == 1", "scalar_value"),
        ("G['G'] == 1", "global"),
        ("self.training == True", "module_training"),
        ("s.training == True", "module_training"),
        ("self.scale == 1", "module_attribute"),
        ("___check_obj_id(fn.__code__, 140555367588016), type=<class 'code'>", "object_identity"),
        ("___check_type_id(x, 94000000)", "type"),
        ("len(l) == 1", "length"),
        ("something new", "other"),
    ],
)
def test_guard_classes(guard: str, cls: str) -> None:
    assert guards.classify(guard) == cls
    assert cls == "other" or guards.FIXES[cls]


def test_guard_subject_drops_values() -> None:
    assert guard_subject("args[1] == 'mode0'") == guard_subject("args[1] == 'mode7'")
    assert guard_subject("tensor 'x' size mismatch at index 0. expected 2, actual 3") == (
        "tensor 'x' size mismatch at index 0"
    )


def test_runner_imports_without_torch() -> None:
    code = textwrap.dedent(
        """
        import sys
        sys.modules['torch'] = None  # any `import torch` now fails
        from breakscan.dynamic.runner import run_dynamic, torch_available, DynamicResult
        print('ok')
        """
    )
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "ok", out.stderr


def test_a_scanned_installed_package_is_the_project_and_keeps_its_frames(tmp_path):
    """Scanning `site-packages/pkg` (as bench/accuracy.py scans transformers): a break inside torch
    reached from pkg is placed at pkg's innermost frame, and pkg's frames stay in the stack."""
    from breakscan.dynamic.runner import in_project, primary_frame, user_stack

    site = tmp_path / "lib" / "site-packages"
    pkg = site / "pkg"
    (pkg / "models").mkdir(parents=True)
    (site / "torch" / "nn").mkdir(parents=True)
    frames = [
        {"path": str(site / "torch" / "nn" / "module.py"), "line": 1778, "function": "_wrapped_call_impl"},
        {"path": str(pkg / "wrap.py"), "line": 361, "function": "wrapper"},
        {"path": str(pkg / "models" / "m.py"), "line": 317, "function": "forward"},
        {"path": str(site / "torch" / "nn" / "module.py"), "line": 587, "function": "register_buffer"},
    ]
    assert in_project(frames[2]["path"], pkg)
    assert not in_project(frames[3]["path"], pkg)
    stack = user_stack(frames, pkg)
    assert [f["line"] for f in stack] == [361, 317, 587]
    assert primary_frame(stack, pkg)["line"] == 317
    # A project with its own virtual environment: the venv's packages are not the project.
    project = tmp_path / "proj"
    venv_file = project / ".venv" / "lib" / "site-packages" / "lib.py"
    assert not in_project(str(venv_file), project)
    assert in_project(str(project / "model.py"), project)
    # Without the package as root no frame is in the project: the break goes to the innermost
    # frame that is neither torch nor the standard library (pkg's line that called torch), and
    # the library's frames stay in the stack (issue 13, item 10).
    elsewhere = user_stack(frames, tmp_path / "elsewhere")
    assert [f["line"] for f in elsewhere] == [361, 317, 587]
    assert primary_frame(elsewhere, tmp_path / "elsewhere")["line"] == 317


# `WON'T CONVERT` as torch 2.13 logs it (INFO, `torch._dynamo.convert_frame`) for a generator
# compiled directly; Dynamo's traceback frames shortened.
WONT_CONVERT = """\
WON'T CONVERT squares {path} line 1 
due to: 
Traceback (most recent call last):
  File "/site-packages/torch/_dynamo/convert_frame.py", line 2290, in __call__
    result = self._inner_convert(
torch._dynamo.exc.Unsupported: Attempt to trace generator
  Explanation: Generators cannot be compiled directly with `torch.compile`.
  Hint: Call a generator from inside of a non-generator Python function and compile that function instead.
  Hint: This graph break is fundamental - it is unlikely that Dynamo will ever be able to trace through your code. Consider finding a workaround.

  Developer debug context: 

 For more details about this graph break, please visit: https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0003.html
Traceback (most recent call last):
torch._dynamo.exc.Unsupported: Attempt to trace generator
"""


def test_wont_convert_is_a_frame_fallback_at_the_frames_def(tmp_path: Path) -> None:
    src = tmp_path / "gen.py"
    src.write_text("@decorated\ndef squares(x):\n    yield x\n", encoding="utf-8")
    ev = parse.parse_wont_convert(WONT_CONVERT.format(path=src))
    assert ev is not None and ev["fallback"] and ev["escaped"]
    assert (ev["gb_type"], ev["gb_id"]) == ("Attempt to trace generator", "GB0003")
    assert ev["explanation"] == "Generators cannot be compiled directly with `torch.compile`."
    assert len(ev["hints"]) == 2
    assert [(f["path"], f["line"], f["function"]) for f in ev["stack"]] == [(str(src), 2, "squares")]
    assert parse.parse_wont_convert("Graph break in user code at x.py:1") is None


def test_wont_convert_takes_the_raised_exception_and_dynamos_user_frames() -> None:
    text = (
        "WON'T CONVERT f /p/m.py line 3 \ndue to: \nTraceback (most recent call last):\n"
        "NotImplementedError: DataPtrVariable()\n\nThe above exception was the direct cause of the following "
        "exception:\n\nTraceback (most recent call last):\n"
        "torch._dynamo.exc.Unsupported: Failed to convert args/kwargs to proxy\n"
        "  Explanation: Missing `as_proxy()` implementation for some arg/kwarg.\n\nfrom user code:\n"
        '   File "/p/m.py", line 4, in f\n    return x + x.data_ptr()\n\n'
        "Set TORCHDYNAMO_VERBOSE=1 for the internal stack trace\n"
    )
    ev = parse.parse_wont_convert(text)
    assert ev is not None and ev["gb_type"] == "Failed to convert args/kwargs to proxy"
    assert (ev["path"], ev["line"]) == ("/p/m.py", 4)


def test_guards_on_values_carried_over_a_graph_break_read_without_internal_names() -> None:
    # `torch_dynamo_resume_in_f_at_24` guards its `___stack2`: the result of the call that broke.
    assert guards.classify("___stack2 == 0.6957", "", "GB0007") == "graph_break_value"
    assert guards.classify("___stack0 == 3", "", "GB0036") == "data_dependent_shape"
    assert guards.classify("tensor '___stack0' size mismatch at index 0. expected 3, actual 2", "", "GB0036") == (
        "data_dependent_shape")
    assert guards.classify("tensor '___stack0' size mismatch at index 0. expected 3, actual 2") == "shape"
    assert guards.describe("___stack2 == 0.69", {2: "random.random()"}) == "random.random() == 0.69"
    assert guards.describe("2 <= ___stack1.size()[0]", {-1: "torch.nonzero(x)"}) == "2 <= torch.nonzero(x).size()[0]"
    assert guards.describe("___stack0 == 1", {}) == "<value at the graph break> == 1"
    assert guards.describe("___check_obj_id(fn.__code__, 140555367588016)") == "fn.__code__ is the same object"
    assert guards.describe("___check_type_id(x, 94000000)") == "type(x) is unchanged"
    assert "___" not in guards.describe("___odict_getitem(self._modules, 'a') == 1")


def test_pseudo_files_are_never_in_the_project_nor_a_placement(tmp_path: Path, monkeypatch) -> None:
    from breakscan.dynamic.runner import in_project, primary_frame

    monkeypatch.chdir(tmp_path)  # `<string>` would resolve to tmp_path/<string>
    assert not in_project("<string>", tmp_path)
    frames = [{"path": str(tmp_path / "m.py"), "line": 5, "function": "f"},
              {"path": "<string>", "line": 4, "function": "__init__"}]
    assert primary_frame(frames, tmp_path / "elsewhere")["line"] == 5
