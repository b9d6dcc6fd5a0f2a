"""Notebooks, static: `breakscan nb.ipynb` scans the code cells as one module and reports each
finding at its cell (1-based among all cells) and its line in that cell; `--fix` rewrites the
cells through nbformat and keeps outputs, metadata and ids. Driven as a user does: a notebook
written with nbformat in a fresh directory, the installed `breakscan` run on it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from breakscan.notebook import python_lines, to_module
from tests.sarif_helpers import check_github_requirements, validate_schema

BREAKSCAN = str(Path(sys.executable).with_name("breakscan"))

HELPER = "def helper(x):\n    return x.item() + 1"  # cell 3: an unannotated helper
COMPILED = (
    "@torch.compile\n"
    "def f(x):\n"
    "    y = helper(x)\n"
    "    print('loss', y)  # breakscan: ignore\n"
    "    return x * y\n"
    "\n"
    "f?\n"
    "files = !ls\n"
    "f(torch.ones(1))"
)


def write_notebook(path: Path, cells: list) -> Path:
    nb = new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = cells
    nbformat.write(nb, path)
    return path


def demo_cells() -> list:
    compiled = new_code_cell(COMPILED, execution_count=4,
                             outputs=[new_output("stream", name="stdout", text="tensor([2.])\n")])
    compiled.metadata["tags"] = ["train"]
    return [
        new_markdown_cell("# Training"),
        new_code_cell("%matplotlib inline\n!pip install -q something\nimport torch"),
        new_code_cell(HELPER),
        new_code_cell("%%bash\necho $HOME\nfor x in 1 2; do echo $x; done"),
        compiled,
    ]


def breakscan(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([BREAKSCAN, *args, "--no-dynamic"], cwd=cwd, capture_output=True, text=True,
                          timeout=120)


def test_finding_in_a_helper_cell_is_reported_at_its_cell_and_line_in_json(tmp_path):
    write_notebook(tmp_path / "nb.ipynb", demo_cells())
    out = breakscan("nb.ipynb", "-f", "json", cwd=tmp_path)
    assert out.returncode == 1, out.stderr
    found = [(f["rule_id"], f["path"], f["cell"], f["line"], f["column"]) for f in json.loads(out.stdout)["findings"]]
    # BRK102 at `x.item()`: cell 3 (the markdown cell counts), line 2, column 12; the print in
    # the compiled function carries `# breakscan: ignore`, so no BRK201.
    assert found == [("BRK102", "nb.ipynb", 3, 2, 12)]


def test_text_report_names_the_cell_and_shows_its_lines(tmp_path):
    write_notebook(tmp_path / "nb.ipynb", demo_cells())
    out = breakscan("nb.ipynb", "-q", "--color", "never", cwd=tmp_path)
    assert "nb.ipynb:cell 3:2:12 BRK102" in out.stdout
    assert "> 2 |     return x.item() + 1" in out.stdout


def test_notebooks_in_a_directory_are_scanned_and_checkpoints_are_not(tmp_path):
    (tmp_path / "nbs" / ".ipynb_checkpoints").mkdir(parents=True)
    write_notebook(tmp_path / "nbs" / "a.ipynb", demo_cells())
    write_notebook(tmp_path / "nbs" / ".ipynb_checkpoints" / "a-checkpoint.ipynb", demo_cells())
    out = breakscan(".", "-f", "json", cwd=tmp_path)
    data = json.loads(out.stdout)
    assert data["files_scanned"] == 1
    assert {(f["path"], f["cell"]) for f in data["findings"]} == {("nbs/a.ipynb", 3)}


def test_sarif_places_the_finding_on_the_notebook_line_that_holds_the_code(tmp_path):
    nb = write_notebook(tmp_path / "nb.ipynb", demo_cells())
    out = breakscan("nb.ipynb", "-f", "sarif", cwd=tmp_path)
    doc = json.loads(out.stdout)
    validate_schema(doc)
    check_github_requirements(doc)
    result = doc["runs"][0]["results"][0]
    location = result["locations"][0]
    region = location["physicalLocation"]["region"]
    assert location["physicalLocation"]["artifactLocation"]["uri"] == "nb.ipynb"
    json_line = nb.read_text(encoding="utf-8").split("\n")[region["startLine"] - 1]
    assert json_line.strip() == '"    return x.item() + 1"'
    assert json_line[region["startColumn"] - 1:region["endColumn"] - 1] == "x.item()"
    assert location["logicalLocations"][0]["name"] == "cell 3"
    assert (result["properties"]["breakscan/cell"], result["properties"]["breakscan/cellLine"]) == (3, 2)


def test_github_annotation_points_into_the_notebook_file_and_names_the_cell(tmp_path):
    nb = write_notebook(tmp_path / "nb.ipynb", demo_cells())
    out = breakscan("nb.ipynb", "-f", "github", cwd=tmp_path)
    line = nb.read_text(encoding="utf-8").split("\n").index('    "    return x.item() + 1"') + 1
    assert f"file=nb.ipynb,line={line},col=17" in out.stdout
    assert "::cell 3, line 2: `x.item()`" in out.stdout


def test_compile_regions_cross_cells_and_a_cell_magic_body_is_not_python(tmp_path):
    cells = [new_code_cell("import torch"),
             new_code_cell("%%writefile helper.py\ndef g(x):\n    return x.item()"),
             new_code_cell("def h(x):\n    return x.tolist()"),
             new_code_cell("def breakscan_examples():\n    yield h, (torch.ones(2),)")]
    write_notebook(tmp_path / "nb.ipynb", cells)
    data = json.loads(breakscan("nb.ipynb", "-f", "json", cwd=tmp_path).stdout)
    # h is a compile region through `breakscan_examples()` in another cell; %%writefile's body is text
    assert [(f["rule_id"], f["cell"], f["line"]) for f in data["findings"]] == [("BRK103", 3, 2)]


def test_a_cell_that_is_not_python_gives_a_parse_error_at_its_cell(tmp_path):
    write_notebook(tmp_path / "nb.ipynb", [new_code_cell("import torch"), new_code_cell("x = (1,\ny = 2")])
    data = json.loads(breakscan("nb.ipynb", "-f", "json", cwd=tmp_path).stdout)
    assert [(f["rule_id"], f["cell"]) for f in data["findings"]] == [("BRK901", 2)]


def test_an_unparsable_cell_is_an_error_at_its_line_and_the_other_cells_are_still_scanned(tmp_path):
    cells = demo_cells()
    cells.insert(3, new_code_cell("x = 1\nfor i in range(3)\n    x += i"))  # cell 4: no colon
    write_notebook(tmp_path / "nb.ipynb", cells)
    out = breakscan("nb.ipynb", "-f", "json", cwd=tmp_path)
    found = [(f["rule_id"], f["cell"], f["line"], f["column"]) for f in json.loads(out.stdout)["findings"]]
    # the helper in cell 3 is still a compile region through `f` in cell 6
    assert found == [("BRK102", 3, 2, 12), ("BRK901", 4, 2, 18)], out.stdout
    error = json.loads(out.stdout)["findings"][1]
    assert error["message"] == ("cannot parse: expected ':' (cell 4 is left out of the scan; the other cells "
                                "are scanned)") and error["severity"] == "error"
    assert out.returncode == 1


def test_fixing_the_unparsable_cell_clears_its_error_and_scans_it(tmp_path):
    path = write_notebook(tmp_path / "nb.ipynb", [new_code_cell("import torch"),
                                                  new_code_cell("@torch.compile\ndef f(x)\n    return x.item()")])
    before = json.loads(breakscan("nb.ipynb", "-f", "json", cwd=tmp_path).stdout)["findings"]
    write_notebook(path, [new_code_cell("import torch"),
                          new_code_cell("@torch.compile\ndef f(x):\n    return x.item()")])
    after = json.loads(breakscan("nb.ipynb", "-f", "json", cwd=tmp_path).stdout)["findings"]
    assert [(f["rule_id"], f["cell"], f["line"]) for f in before] == [("BRK901", 2, 2)]
    assert [(f["rule_id"], f["cell"], f["line"]) for f in after] == [("BRK102", 2, 3)]


def test_a_file_that_is_not_a_notebook_is_a_clean_error(tmp_path):
    (tmp_path / "bad.ipynb").write_text("{not json", encoding="utf-8")
    out = breakscan("bad.ipynb", "-f", "json", cwd=tmp_path)
    finding = json.loads(out.stdout)["findings"][0]
    assert finding["rule_id"] == "BRK901" and "cannot read notebook" in finding["message"]


def test_fix_rewrites_cells_in_place_keeping_outputs_metadata_and_ids(tmp_path):
    compiled = new_code_cell("@torch.compile\ndef f(x):\n    torch._dynamo.graph_break()\n    return x + 1",
                             execution_count=3, outputs=[new_output("stream", name="stdout", text="hi\n")])
    compiled.metadata["tags"] = ["keep"]
    path = write_notebook(tmp_path / "nb.ipynb", [new_markdown_cell("# Fix"),
                                                  new_code_cell("%load_ext autoreload\nimport torch"),
                                                  compiled, new_code_cell("!ls\nf(torch.ones(2))")])
    before = nbformat.read(path, as_version=4)
    out = breakscan("nb.ipynb", "--fix", "-f", "json", cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    after = nbformat.read(path, as_version=4)
    assert after.cells[2].source == "@torch.compile\ndef f(x):\n    return x + 1"
    assert after.cells[2].outputs == before.cells[2].outputs and after.cells[2].metadata == {"tags": ["keep"]}
    assert after.cells[2].execution_count == 3
    assert [c.get("id") for c in after.cells] == [c.get("id") for c in before.cells]
    assert [c.source for i, c in enumerate(after.cells) if i != 2] == [c.source for i, c in enumerate(before.cells) if i != 2]
    assert json.loads(out.stdout)["findings"] == []


def test_cache_follows_the_notebook_content(tmp_path):
    path = write_notebook(tmp_path / "nb.ipynb", demo_cells())
    first = json.loads(breakscan("nb.ipynb", "-f", "json", cwd=tmp_path).stdout)["findings"]
    cells = demo_cells()
    cells[2] = new_code_cell("def helper(x):\n    return x + 1")
    write_notebook(path, cells)
    second = json.loads(breakscan("nb.ipynb", "-f", "json", cwd=tmp_path).stdout)["findings"]
    assert [f["rule_id"] for f in first] == ["BRK102"] and second == []


@pytest.mark.parametrize("cell, expected", [
    ("%time y = f(x)\nz = 1", ["pass", "z = 1"]),
    ("for i in range(3):\n    !echo $i\n    x = i", ["for i in range(3):", "    pass", "    x = i"]),
    ("files = !ls\nmodel?\n??model", ["pass", "pass", "pass"]),
    ("x = 10 % 3\ns = '%d' % x", ["x = 10 % 3", "s = '%d' % x"]),  # Python: kept whole
    ("%%timeit -n 1\nf(x)", ["", "f(x)"]),
    ("%%bash\nls -l", ["", ""]),
    ("!pip install \\\n   torch\nimport torch", ["pass", "", "import torch"]),
    ("!nvidia-smi\nx = y.item()  # why?\nnp.*load*?", ["pass", "x = y.item()  # why?", "pass"]),
])
def test_ipython_lines_become_pass_lines_one_for_one(cell, expected):
    assert python_lines(cell) == expected


def test_module_lines_map_back_to_cells_counting_markdown_cells():
    nb = new_notebook(cells=[new_markdown_cell("x"), new_code_cell("a = 1\nb = 2"), new_code_cell(""),
                             new_markdown_cell("y"), new_code_cell("c = 3\n")])
    module = to_module(nb)
    assert module.source == "a = 1\nb = 2\nc = 3\n"
    assert [module.cell_at(n) for n in (1, 2, 3, 4)] == [(2, 1), (2, 2), (5, 1), (5, 2)]  # 4: past the end


def test_dynamic_pass_names_the_notebooks_it_does_not_run(tmp_path):
    cells = [new_code_cell("import torch"), new_code_cell("def h(x):\n    return x.tolist()"),
             new_code_cell("def breakscan_examples():\n    yield h, (torch.ones(2),)")]
    write_notebook(tmp_path / "ex.ipynb", cells)
    out = subprocess.run([BREAKSCAN, "ex.ipynb", "-f", "json"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=120)
    data = json.loads(out.stdout)
    assert not data["dynamic_ran"]
    assert [(f["rule_id"], f["status"], f["cell"]) for f in data["findings"]] == [("BRK103", "predicted", 2)]
    assert "dynamic pass skipped for 1 notebook(s) defining breakscan_examples() (ex.ipynb)" in out.stderr


def test_fix_inserting_after_the_imports_of_a_cell_puts_the_line_at_the_end_of_that_cell(tmp_path):
    path = write_notebook(tmp_path / "nb.ipynb", [
        new_code_cell("import torch"),
        new_code_cell("@torch.compile\ndef f(x):\n    print('x is', x)\n    return x + 1"),
    ])
    out = breakscan("nb.ipynb", "--fix", "-f", "json", cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    cells = [c.source for c in nbformat.read(path, as_version=4).cells]
    assert cells == ["import torch\n\ntorch._dynamo.config.reorderable_logging_functions.add(print)",
                     "@torch.compile\ndef f(x):\n    print('x is', x)\n    return x + 1"]


def test_diff_on_a_notebook_writes_nothing(tmp_path):
    path = write_notebook(tmp_path / "nb.ipynb", [
        new_code_cell("import torch"),
        new_code_cell("@torch.compile\ndef f(x):\n    torch._dynamo.graph_break()\n    return x + 1"),
    ])
    before = path.read_bytes()
    out = breakscan("nb.ipynb", "--diff", cwd=tmp_path)
    assert out.returncode == 1, out.stdout + out.stderr
    assert " # %% cell 2\n @torch.compile\n def f(x):\n-    torch._dynamo.graph_break()\n     return x + 1\n" in out.stdout
    assert path.read_bytes() == before


def test_a_notebook_as_dynamic_entry_is_refused_with_the_way_to_run_it(tmp_path):
    write_notebook(tmp_path / "ex.ipynb", [new_code_cell("def breakscan_examples():\n    yield from ()")])
    out = subprocess.run([BREAKSCAN, "ex.ipynb", "--entry", "ex.ipynb:breakscan_examples"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert "the dynamic pass does not run notebooks; run their cells under %%breakscan" in out.stderr
