"""The real pre-commit framework runs the `breakscan` hook from this repository (try-repo), and
the README's local hook as written.

For try-repo pre-commit builds the hook's environment itself (`language: python`: a virtualenv
with this project pip-installed, no torch), so that test needs PyPI for breakscan's dependencies;
it skips with the reason when the installation fails for lack of network. The README's local hook
(`language: system`) uses the breakscan installed next to this interpreter. Both skip when
pre-commit is missing.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
HOOKS = ROOT / ".pre-commit-hooks.yaml"
OFFLINE_SIGNS = ("NewConnectionError", "Temporary failure in name resolution", "Network is unreachable",
                 "No matching distribution found", "Could not find a version that satisfies")

BREAKING = textwrap.dedent(
    """\
    import torch
    from torch import nn


    class Gate(nn.Module):
        def forward(self, x):
            if x.sum().item() > 0:
                return x
            return -x
    """
)
FIXED = BREAKING.replace("if x.sum().item() > 0:\n            return x\n        return -x",
                         "return torch.where(x.sum() > 0, x, -x)")


def hooks() -> dict[str, dict]:
    return {h["id"]: h for h in yaml.safe_load(HOOKS.read_text(encoding="utf-8"))}


def test_static_hook_needs_no_torch_and_gets_the_filenames() -> None:
    hook = hooks()["breakscan"]
    assert hook["language"] == "python" and hook["types_or"] == ["python", "jupyter"]  # notebooks too
    assert "--no-dynamic" in hook["entry"].split()
    assert hook.get("pass_filenames", True) is True
    assert "stages" not in hook  # runs on every commit


def test_dynamic_hook_is_manual_and_uses_the_system_environment() -> None:
    hook = hooks()["breakscan-dynamic"]
    assert hook["language"] == "system" and hook["stages"] == ["manual"]
    assert "--no-dynamic" not in hook["entry"].split()


def _git(repo: Path, *args: str, env: dict[str, str]) -> None:
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True)


def _try_repo(repo: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "breakscan", "--all-files",
                           "--color", "never"], cwd=repo, env=env, capture_output=True, text=True, timeout=900)
    if proc.returncode != 0 and any(sign in proc.stdout + proc.stderr for sign in OFFLINE_SIGNS):
        pytest.skip("pre-commit could not install the hook's environment (no package index?): "
                    + (proc.stdout + proc.stderr).strip().splitlines()[-1])
    return proc


@pytest.mark.skipif(importlib.util.find_spec("pre_commit") is None, reason="pre-commit is not installed (test extra)")
def test_try_repo_fails_on_a_break_then_passes_once_fixed(tmp_path: Path) -> None:
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "NO_COLOR": "1",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    env.pop("PYTHONPATH", None)  # the hook must use its own environment, not this checkout
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", env=env)
    (repo / "model.py").write_text(BREAKING, encoding="utf-8")
    (repo / "README.txt").write_text("not python\n", encoding="utf-8")
    _git(repo, "add", ".", env=env)
    _git(repo, "commit", "-q", "-m", "a model", env=env)

    failed = _try_repo(repo, env)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "BRK102" in failed.stdout and "model.py:7" in failed.stdout

    (repo / "model.py").write_text(FIXED, encoding="utf-8")
    _git(repo, "commit", "-q", "-am", "fix the break", env=env)
    passed = _try_repo(repo, env)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout


def readme_local_hook() -> str:
    """The first YAML block of the README's pre-commit section: the `repo: local` hook."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("### pre-commit\n"):]
    return re.search(r"```yaml\n(.*?)```", section, re.DOTALL).group(1)


@pytest.mark.skipif(importlib.util.find_spec("pre_commit") is None, reason="pre-commit is not installed (test extra)")
def test_readme_local_hook_works_as_written(tmp_path: Path) -> None:
    config = readme_local_hook()
    assert "repo: local" in config and "rev:" not in config
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "NO_COLOR": "1",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
           # breakscan installed in the environment pre-commit runs from (this interpreter's)
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("PYTHONPATH", None)
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", env=env)
    (repo / ".pre-commit-config.yaml").write_text(config, encoding="utf-8")
    (repo / "model.py").write_text(BREAKING, encoding="utf-8")
    _git(repo, "add", ".", env=env)

    def run() -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"],
                              cwd=repo, env=env, capture_output=True, text=True, timeout=300)

    failed = run()
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "BRK102" in failed.stdout and "model.py:7" in failed.stdout
    (repo / "model.py").write_text(FIXED, encoding="utf-8")
    _git(repo, "add", ".", env=env)
    passed = run()
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout
