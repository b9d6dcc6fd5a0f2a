"""Phase B parses a file with the defs no region check reads elided (breakscan.static.elide): the
findings are those of the whole file, line for line, and `--fix` still writes the whole file."""

from __future__ import annotations

import re
from pathlib import Path

import libcst as cst
from typer.testing import CliRunner

import breakscan.static.engine as engine
from breakscan.catalog import load_catalog
from breakscan.cli import app
from breakscan.static.elide import elided_source
from breakscan.static.engine import compiled_roots, index_file, scan_files
from breakscan.static.index import ProjectIndex
from breakscan.static.region_pass import compute_regions

MODEL = '''\
import torch
from torch import nn


def export_weights(model, path):
    """Not traced: written the way release scripts are."""
    for name, p in model.state_dict().items():
        print(name, p.sum().item())
    torch.save(model.state_dict(), path)


def scale(x):
    return x * x.max().item()


class Net(nn.Module):
    def __init__(self, d=4):
        super().__init__()
        self.lin = nn.Linear(d, d)

    @torch.no_grad()
    def reset(self):
        for p in self.parameters():
            p.zero_()

    def forward(self, x):
        y = scale(self.lin(x))
        if y.sum() > 0:
            y = y + 1
        print(y)
        return y.tolist()
'''


def _regions(tmp_path: Path, files: dict[str, str]) -> tuple[dict, dict]:
    index = ProjectIndex()
    infos = {}
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        entry = index_file(path)
        index.add(entry.info)
        infos[name] = entry.info
    by_file: dict = {}
    for region in compute_regions(index, "modules", None).regions.values():
        by_file.setdefault(Path(region.module.path).name, []).append(region)
    return infos, by_file


def test_elided_text_keeps_every_line_and_the_code_regions_read(tmp_path):
    infos, by_file = _regions(tmp_path, {"model.py": MODEL})
    text = elided_source(MODEL, infos["model.py"], by_file["model.py"])
    assert text is not None
    before, after = MODEL.splitlines(), text.splitlines()
    assert len(after) == len(before)
    gone = [i for i, (a, b) in enumerate(zip(before, after)) if a != b]
    # export_weights (lines 5-9), Net.__init__ (17-19) and Net.reset (21-24, decorator included)
    # go; `scale`, called from forward, stays.
    assert [i + 1 for i in gone] == [5, 6, 7, 8, 9, 17, 18, 19, 21, 22, 23, 24]
    assert after[4] == "pass" and after[16] == after[20] == "    pass"
    assert all(after[i] == "" for i in gone if i not in (4, 16, 20))
    assert "def scale(x):" in after and "    def forward(self, x):" in after
    cst.parse_module(text)


def test_scan_of_the_elided_file_reports_what_the_whole_file_gives(tmp_path, monkeypatch):
    path = tmp_path / "model.py"
    path.write_text(MODEL)
    rules = list(load_catalog().values())
    elided = []
    real = engine._elided_text

    def spy(*args, **kwargs):
        elided.append(real(*args, **kwargs))
        return elided[-1]

    monkeypatch.setattr(engine, "_elided_text", spy)
    with_elision = scan_files([path], rules)
    assert elided and elided[0] is not None
    monkeypatch.setattr(engine, "_elided_text", lambda *args, **kwargs: None)
    whole = scan_files([path], rules)

    def key(f):
        return (f.rule_id, f.line, f.column, f.end_line, f.end_column, f.message, f.code)

    assert [key(f) for f in with_elision.findings] == [key(f) for f in whole.findings]
    # the helper `scale` (line 13) is read through forward's call; nothing in the elided defs
    assert [(f.rule_id, f.line) for f in whole.findings] == [
        ("BRK102", 13), ("BRK101", 28), ("BRK201", 30), ("BRK103", 31)]


def test_fix_after_an_elided_check_writes_the_whole_file(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(MODEL)
    result = CliRunner().invoke(app, ["check", str(tmp_path), "--fix", "--unsafe-fixes", "--no-dynamic",
                                      "--exit-zero", "--root", str(tmp_path), "--color", "never"])
    assert result.exit_code == 0, result.output
    assert "Fixed" in result.stdout
    text = path.read_text()
    assert text != MODEL
    for kept in ("def export_weights(model, path):", "        print(name, p.sum().item())",
                 "    def reset(self):", "            p.zero_()", "        self.lin = nn.Linear(d, d)"):
        assert kept in text
    compile(text, str(path), "exec")


def test_a_module_importing_a_compiled_function_is_read_whole(tmp_path):
    """Its calls of the compiled function give the function's parameter kinds wherever they sit
    (CallSiteInference._imported_root_sites), so no def of it is elided."""
    files = {
        "pkg/__init__.py": "",
        "pkg/engine.py": "import torch\n\n@torch.compile\ndef step(x, n):\n    return x * n\n",
        "pkg/train.py": MODEL + "\n\nfrom .engine import step\n\ndef main(x):\n    return step(x, 3)\n",
    }
    infos, by_file = _regions(tmp_path, files)
    roots = compiled_roots({name: found for name, found in by_file.items()})
    assert any(re.search(r"\.engine\.step$", root) for root in roots), roots
    assert elided_source(files["pkg/train.py"], infos["pkg/train.py"], by_file["train.py"], roots) is None
    assert elided_source(files["pkg/train.py"], infos["pkg/train.py"], by_file["train.py"]) is not None
