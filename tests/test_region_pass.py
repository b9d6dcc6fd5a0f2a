"""The language server's incremental region pass gives exactly what the whole region pass gives.

A small project (a package with relative imports, unannotated helpers, a compiled entry point,
Dynamo settings) is edited step by step as a user types; after each step the project is indexed
as the warm server indexes it (unchanged files keep their index entries, the edited one gets a
new one) and IncrementalRegions' regions, chains, call sites, skipped frames and settings are
compared with a whole computation (`compute_regions`) on the same index.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from breakscan.static.engine import index_file
from breakscan.static.index import ProjectIndex
from breakscan.static.region_pass import IncrementalRegions, compute_regions

FILES = {
    "pkg/__init__.py": "",
    "pkg/helpers.py": (
        "import torch\n"
        "\n"
        "def helper(x):\n"
        "    return x.item() + 1\n"
        "\n"
        "def unused(x):\n"
        "    return x.tolist()\n"
        "\n"
        "@torch.compiler.disable(recursive=False)\n"
        "def skipped(x):\n"
        "    return helper(x)\n"
    ),
    "pkg/model.py": (
        "import torch\n"
        "from torch import nn\n"
        "from .helpers import helper, skipped\n"
        "\n"
        "class Block(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.lin = nn.Linear(2, 2)\n"
        "\n"
        "    def forward(self, x):\n"
        "        return self.scale(self.lin(x))\n"
        "\n"
        "    def scale(self, x):\n"
        "        return x * helper(x)\n"
        "\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.block = Block()\n"
        "\n"
        "    def forward(self, x):\n"
        "        return skipped(self.block(x))\n"
    ),
    "train.py": (
        "import torch\n"
        "from pkg.model import Net\n"
        "\n"
        "torch._dynamo.config.capture_scalar_outputs = True\n"
        "model = Net()\n"
        "fast = torch.compile(model, fullgraph=True)\n"
        "\n"
        "def loop(x):\n"
        "    return fast(x)\n"
    ),
}

# (file, old text, new text, whether the last pass can be reused): each applies to the text
# as the steps before left it.
EDITS = [
    ("pkg/helpers.py", "    return x.tolist()\n", "    y = x.tolist()\n    return y\n", True),  # untraced body
    ("pkg/helpers.py", "import torch\n", "import torch\n\n\n# lines moved\n", True),  # positions only
    ("pkg/helpers.py", "def unused(x):", "def fresh(x):\n    return x\n\ndef unused(x):", True),  # unmentioned add
    ("pkg/model.py", "        return x * helper(x)\n", "        return x * helper(x) * 2\n", True),  # same calls
    ("pkg/model.py", "        return x * helper(x) * 2\n", "        return x * helper(x) * unused(x)\n", False),
    ("pkg/model.py", "        return x * helper(x) * unused(x)\n", "        return x * helper(x)\n",
     True),  # as two steps before: that pass

    ("pkg/helpers.py", "def fresh(x):\n    return x\n\n", "", True),  # unmentioned remove
    ("pkg/helpers.py", "def helper(x):\n    return x.item() + 1\n",
     "def helper(x):\n    return unused(x) + 1\n", False),  # a traced body calls something new
    ("pkg/helpers.py", "def unused(x):", "@torch.compile\ndef unused(x):", False),  # a new root
    ("pkg/helpers.py", "@torch.compile\ndef unused(x):", "def unused(x):", True),  # as two steps before
    ("train.py", "fullgraph=True", "fullgraph=False", False),  # settings
    ("train.py", "    return fast(x)\n", "    return fast(x) + 1\n", True),  # loop is not compiled
    ("pkg/model.py", "    def scale(self, x):", "    def scale(self, x) -> None:", True),  # annotation only
    ("pkg/model.py", "class Net(nn.Module):", "class Net(nn.Module)\n", False),  # a syntax error
    ("pkg/model.py", "class Net(nn.Module)\n", "class Net(nn.Module):", True),  # fixed: the pass before
    ("pkg/model.py", "    def scale(self, x) -> None:", "    def other(self, x):\n        return x\n\n"
     "    def scale(self, x) -> None:", True),  # an unmentioned method
    ("pkg/model.py", "    def other(self, x):", "    def skipped(self, x):", False),  # a mentioned name
    ("pkg/helpers.py", "def helper(x):", "def helper(x, y=None):", False),  # a traced function's parameters
    ("train.py", "model = Net()\n", "model = Net()\nextra = Net()\n", False),  # module variables
    ("train.py", "def loop(x):", "slow = torch.compile(later)\n\ndef loop(x):", False),  # a target of nothing yet
    ("train.py", "def loop(x):", "def later(x):\n    return x.item()\n\ndef loop(x):", False),  # now it is
]


def summary(result) -> tuple:
    """Everything later stages read of a region pass, with object identities (both passes ran
    on the same index, so equal results hold the very same index objects)."""
    finder = result.finder
    regions = [(key, id(r.module), id(r.cls), id(r.function), r.chain, id(r.dispatch), r.function.line)
               for key, r in result.regions.items()]
    return (regions, list(result.settings.items()), sorted((k, sorted(v)) for k, v in finder.callers.items()),
            finder.traced_callers(), sorted(finder._skipped), finder.index is not None)


class Project:
    """The project on disk and its index as the warm server keeps it: a file's entry is made
    again only when its text changed (or when `touch`ed, as an editor's open document is)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.entries: dict[str, tuple[str, object]] = {}
        for rel, text in FILES.items():
            self.write(rel, text)

    def write(self, rel: str, text: str) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    def index(self, touch: str | None = None) -> ProjectIndex:
        index = ProjectIndex()
        for rel in FILES:
            path = self.root / rel
            text = path.read_text(encoding="utf-8")
            kept = self.entries.get(rel)
            if kept is None or kept[0] != text or rel == touch:
                kept = self.entries[rel] = (text, index_file(path))
            if kept[1].info is not None:
                index.add(kept[1].info)
        return index


def test_incremental_regions_equal_a_whole_computation_after_every_edit(tmp_path):
    project = Project(tmp_path)
    incremental = IncrementalRegions(history=4)  # two modes in turn: two passes per step
    index = project.index()
    table = {"capture_dynamic_output_shape_ops": True}
    for mode in ("modules", "explicit"):
        assert summary(incremental(index, mode, table)) == summary(compute_regions(index, mode, table))
    for step, (rel, old, new, reusable) in enumerate(EDITS):
        text = (tmp_path / rel).read_text(encoding="utf-8")
        assert old in text, f"step {step}: {old!r} not in {rel}"
        project.write(rel, text.replace(old, new, 1))
        index = project.index(touch="train.py")
        for mode in ("modules", "explicit"):
            reused = incremental.reused
            got, want = incremental(index, mode, table), compute_regions(index, mode, table)
            assert summary(got) == summary(want), f"step {step} ({mode}): {rel} {new!r}"
            if mode == "modules":
                assert (incremental.reused > reused) == reusable, f"step {step}: {rel} {new!r}"


def test_a_reused_region_has_the_new_lines_of_its_function(tmp_path):
    project = Project(tmp_path)
    incremental = IncrementalRegions()
    incremental(project.index())
    text = (tmp_path / "pkg/model.py").read_text(encoding="utf-8")
    project.write("pkg/model.py", "# a comment\n\n" + text)
    result = incremental(project.index())
    assert incremental.reused == 1
    scale = next(r for r in result.regions.values() if r.function.qualname == "Block.scale")
    assert scale.function.line == 15 and scale.chain == ("Block.forward", "Block.scale")


def test_other_settings_or_mode_compute_the_regions_whole(tmp_path):
    project = Project(tmp_path)
    incremental = IncrementalRegions()
    index = project.index()
    incremental(index)
    incremental(index, "modules", {"capture_scalar_outputs": True})
    incremental(index, "explicit")
    assert (incremental.reused, incremental.computed) == (0, 3)
    incremental(index)
    assert incremental.reused == 1  # the first pass, still in the history


@pytest.mark.parametrize("mode", ["modules", "explicit"])
def test_a_whole_computation_is_what_the_region_finder_gives(tmp_path, mode):
    from breakscan.static.regions import RegionFinder

    index = Project(tmp_path).index()
    assert list(compute_regions(index, mode).regions) == list(RegionFinder(index, mode).compute())
