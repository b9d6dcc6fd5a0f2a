"""Issue 7: the static pass never imports, executes or evaluates scanned code; scanned text cannot
inject terminal control sequences; reports hold no absolute paths for files inside the root; the
dynamic pass runs user code only when asked for, and a crash in one entry loses nothing."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, requires_torch

HOSTILE = '''\
import os, pathlib
pathlib.Path({marker!r}).write_text("imported")  # runs on import
os.system("touch " + {marker!r} + ".system")
__import__("builtins").exec("open({marker!r} + '.exec', 'w').close()")
import torch

BANNER = "{payload}"


class Evil(torch.nn.Module):
    def forward(self, x):
        print("{payload}")  # {payload}
        y = x.sum()  # breakscan: see \x1b]8;;https://evil.example\x1b\\\\click\x1b]8;;\x1b\\\\
        return x.item() + len("\x1b[2J\x1b[H{payload}")


def __getattr__(name):
    pathlib.Path({marker!r} + ".getattr").write_text(name)
'''
# ANSI colour, clear screen, OSC 8 hyperlink, OSC 52 clipboard write, window title, BEL, bidi override
PAYLOAD = ("\x1b[31mRED\x1b[0m \x1b[2J \x1b]8;;https://evil.example/\x1b\\\\link\x1b]8;;\x1b\\\\ "
           "\x1b]52;c;ZXZpbA==\x07 \x1b]0;title\x07 \u202eevil\u202c \x9b31m")


def _hostile(tmp_path: Path, name: str = "evil.py", examples: bool = False) -> tuple[Path, Path]:
    marker = tmp_path / "MARKER"
    source = HOSTILE.format(marker=str(marker), payload=PAYLOAD)
    if examples:
        source += "\n\ndef breakscan_examples():\n    yield Evil(), (torch.ones(2),)\n"
    path = tmp_path / name
    path.write_text(source, encoding="utf-8")
    return path, marker


def _markers(tmp_path: Path) -> list[str]:
    return sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("MARKER"))


def _cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "BREAKSCAN_CACHE_DIR": str(cwd / ".cache"),
           "XDG_CACHE_HOME": str(cwd / ".cache")}
    env.pop("NO_COLOR", None)
    return subprocess.run([sys.executable, "-m", "breakscan", *args, "--root", str(cwd)], cwd=cwd,
                          capture_output=True, text=True, timeout=300, env=env, encoding="utf-8",
                          errors="surrogateescape")


# never runs scanned code ---------------------------------------------------------------------
def test_static_pass_never_imports_scanned_code(tmp_path):
    path, _ = _hostile(tmp_path)
    (tmp_path / "conftest.py").write_text(f"open({str(tmp_path / 'MARKER.conftest')!r}, 'w')\n")
    (tmp_path / "setup.py").write_text(f"open({str(tmp_path / 'MARKER.setup')!r}, 'w')\n")
    (tmp_path / "__init__.py").write_text(f"open({str(tmp_path / 'MARKER.init')!r}, 'w')\n")
    out = _cli([".", "--no-dynamic", "--format", "json"], cwd=tmp_path)
    assert out.returncode == 1, out.stderr
    assert _markers(tmp_path) == []
    rules = {f["rule_id"] for f in json.loads(out.stdout)["findings"]}
    assert {"BRK102", "BRK201"} <= rules  # it was scanned, not skipped


def test_default_run_does_not_import_a_file_without_breakscan_examples(tmp_path):
    """The default (dynamic pass on) runs nothing for files that do not ask for it, including a
    file that only mentions `def breakscan_examples(` inside a string or a comment."""
    path, _ = _hostile(tmp_path)
    doc = tmp_path / "doc.py"
    doc.write_text('"""Usage:\n\ndef breakscan_examples():\n    yield model, (x,)\n"""\n'
                   f"open({str(tmp_path / 'MARKER.doc')!r}, 'w')\n"
                   "# def breakscan_examples(): (in a comment)\n"
                   "class C:\n    def breakscan_examples(self):\n        pass\n")
    out = _cli([".", "--format", "json"], cwd=tmp_path)
    assert out.returncode == 1, out.stderr
    assert _markers(tmp_path) == []
    assert json.loads(out.stdout)["dynamic_ran"] is False


@requires_torch
@pytest.mark.dynamic
def test_dynamic_pass_runs_code_only_when_asked(tmp_path):
    """The control: the same file with a module-level breakscan_examples() is imported (in a child)."""
    _hostile(tmp_path, examples=True)
    out = _cli(["evil.py", "--format", "json", "--timeout", "120"], cwd=tmp_path)
    assert out.returncode == 1, out.stderr
    assert "MARKER" in _markers(tmp_path)
    assert json.loads(out.stdout)["dynamic_ran"] is True


# terminal control sequences ----------------------------------------------------------------------
_SGR = re.compile(r"\x1b\[[0-9;]*m")
_OSC8 = re.compile(r"\x1b\]8;[^;\x1b\x07]*;([^\x1b\x07]*)")
_OWN_LINK = re.compile("\x1b\\]8;[^;\x1b\x07]*;https://meta-pytorch\\.github\\.io/[^\x1b\x07]*\x1b\\\\")


@pytest.mark.parametrize("color", ["always", "never"])
def test_scanned_text_cannot_inject_control_sequences(tmp_path, color):
    _hostile(tmp_path)
    weird = tmp_path / "name\x1b[31mred\x1b]8;;evil\x07.py"
    weird.write_text("import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
                     f"        return x.item()  # {PAYLOAD}\n")
    out = _cli([".", "--no-dynamic", "--color", color], cwd=tmp_path)
    assert out.returncode == 1, out.stderr
    text = out.stdout + out.stderr
    assert "evil.py" in text and "BRK102" in text
    leftover = _SGR.sub("", text) if color == "always" else text
    # breakscan's own hyperlinks (graph-break ids to the graph-break site) are the only OSC 8 allowed
    leftover = _OWN_LINK.sub("", leftover).replace("\x1b]8;;\x1b\\", "")
    assert "evil" not in "".join(_OSC8.findall(text))
    for bad in ("\x1b", "\x07", "\x9b", "\u202e"):
        assert bad not in leftover, (bad, [line for line in leftover.splitlines() if bad in line][:3])
    if color == "always":
        assert _SGR.search(text)  # styling is still there, and it is all SGR
    else:
        assert "\x1b" not in text
    assert "\\x1b]8;;https://evil.example" in text  # shown, harmlessly


def test_github_annotations_cannot_inject_workflow_commands(tmp_path):
    _hostile(tmp_path)
    out = _cli([".", "--no-dynamic", "--format", "github"], cwd=tmp_path)
    assert out.returncode == 1
    lines = out.stdout.splitlines()
    assert lines and all(line.startswith("::") for line in lines)  # one command per line, none forged
    assert "\x1b" not in out.stdout and "\r" not in out.stdout


# no absolute paths -----------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", ["json", "sarif", "github"])
def test_reports_hold_no_absolute_paths_inside_the_root(tmp_path, fmt):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "model.py").write_text(
        "import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return x.item()\n")
    (tmp_path / "pkg" / "broken.py").write_text("def f(:\n")
    out = _cli(["pkg", "--no-dynamic", "--format", fmt], cwd=tmp_path)
    assert out.returncode == 1, out.stderr
    text = out.stdout
    if fmt == "json":
        data = json.loads(text)
        assert {f["path"] for f in data["findings"]} == {"pkg/model.py", "pkg/broken.py"}
        del data["root"]  # the root itself is reported once, as the base of the relative paths
        text = json.dumps(data)
    if fmt == "sarif":
        data = json.loads(text)
        run = data["runs"][0]
        uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]}
        assert uris == {"pkg/model.py", "pkg/broken.py"}
        run.pop("originalUriBaseIds", None)  # %SRCROOT% names the root, by design (SARIF 3.14.14)
        text = json.dumps(data)
    assert str(tmp_path) not in text and tmp_path.as_uri() not in text


# dynamic faults: a crashing entry loses nothing ----------------------------------------------------
FAULTY = '''\
import ctypes
import torch


class Good(torch.nn.Module):
    def forward(self, x):
        print("hello")  # a break the static pass predicts and Dynamo confirms
        return x * 2


class Raises(torch.nn.Module):
    def forward(self, x):
        raise RuntimeError("user bug")


class Crashes(torch.nn.Module):
    def forward(self, x):
        return ctypes.string_at(0)  # segfault


class Unused(torch.nn.Module):
    def forward(self, x):
        return x.item()  # static only: no example reaches it


def breakscan_examples():
    yield Good(), (torch.ones(3),)
    yield Raises(), (torch.ones(3),)
    yield Crashes(), (torch.ones(3),)
'''


@requires_torch
@pytest.mark.dynamic
def test_a_crashing_entry_loses_no_other_finding_in_any_format(tmp_path):
    (tmp_path / "faulty.py").write_text(FAULTY)
    (tmp_path / "other.py").write_text(
        "import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return x.tolist()\n")
    seen = {}
    for fmt in ("json", "sarif", "github", "text"):
        out = _cli([".", "--format", fmt, "--color", "never", "--timeout", "120"], cwd=tmp_path)
        assert out.returncode == 1, (fmt, out.stderr[-2000:])
        seen[fmt] = out.stdout
    data = json.loads(seen["json"])
    by = {(f["path"], f["rule_id"], f["line"]): f for f in data["findings"]}
    assert ("other.py", "BRK103", 4) in by  # static finding of another file
    assert ("faulty.py", "BRK102", 23) in by  # static finding of the crashing file
    good = by.get(("faulty.py", "BRK201", 7))
    assert good is not None and good["status"] == "confirmed", sorted(by)  # the good entry's break
    errors = [f for f in data["findings"] if f["kind"] == "error"]
    assert any(f["rule_id"] == "BRK903" and "SIGSEGV" in f["message"] for f in errors), errors
    assert any(f["rule_id"] == "BRK902" and "user bug" in f["message"] for f in errors), errors
    sarif = json.loads(seen["sarif"])
    results = {(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"])
               for r in sarif["runs"][0]["results"]}
    assert {("BRK103", 4), ("BRK102", 23), ("BRK201", 7), ("BRK903", ...)} - {("BRK903", ...)} <= results
    assert {"BRK902", "BRK903"} <= {rule for rule, _ in results}
    for rule in ("BRK103", "BRK102", "BRK201", "BRK902", "BRK903"):
        assert rule in seen["github"], rule
        assert rule in seen["text"], rule
