"""docs/github-code-scanning.yml: a ready workflow; its breakscan command runs on the fixtures."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from sarif_helpers import FIXTURES, ROOT, check_github_requirements, validate_schema

WORKFLOW = ROOT / "docs" / "github-code-scanning.yml"


def load() -> dict:
    doc = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert isinstance(doc, dict)
    return doc


def steps() -> list[dict]:
    (job,) = load()["jobs"].values()
    return job["steps"]


def breakscan_command() -> list[str]:
    """argv of the one `run:` line that invokes breakscan."""
    lines = [line.strip() for step in steps() for line in step.get("run", "").splitlines()]
    (line,) = [line for line in lines if line.startswith("breakscan ")]
    return shlex.split(line)


def test_job_may_upload_security_events() -> None:
    (job,) = load()["jobs"].values()
    assert job["permissions"]["security-events"] == "write"


def test_torch_cpu_is_installed_before_breakscan() -> None:
    commands = [line.strip() for step in steps() for line in step.get("run", "").splitlines()]
    torch = next(i for i, c in enumerate(commands) if "torch==2.13.0" in c)
    tool = next(i for i, c in enumerate(commands) if "install" in c and c.rstrip().endswith("breakscan"))
    assert torch < tool and "download.pytorch.org/whl/cpu" in commands[torch]


def test_breakscan_is_installed_from_the_checked_out_submodule() -> None:
    """breakscan is not on PyPI: the workflow installs the submodule the checkout fetched, then
    removes its working tree before the scan of `.` (its fixtures break on purpose)."""
    checkout = next(s for s in steps() if s.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"]["submodules"] is True
    commands = [line.strip() for step in steps() for line in step.get("run", "").splitlines()]
    install = commands.index("python -m pip install ./tools/breakscan")
    deinit = commands.index("git submodule deinit --force tools/breakscan")
    scan = next(i for i, c in enumerate(commands) if c.startswith("breakscan "))
    assert install < deinit < scan
    assert not any(c.endswith("pip install breakscan") for c in commands)


def test_upload_step_uploads_the_file_breakscan_writes() -> None:
    (upload,) = [s for s in steps() if s.get("uses", "").startswith("github/codeql-action/upload-sarif@")]
    assert upload["uses"].endswith("@v4")  # v3 is deprecated
    argv = breakscan_command()
    output = argv[argv.index("--output") + 1] if "--output" in argv else argv[argv.index("-o") + 1]
    assert upload["with"]["sarif_file"] == output
    assert "--format" in argv and argv[argv.index("--format") + 1] == "sarif"
    assert "--exit-zero" in argv  # the upload must run even with findings


def test_the_workflow_command_runs_on_the_fixtures(tmp_path: Path) -> None:
    """Run the workflow's own command line in a checkout-like copy of the fixtures (static pass
    for speed: `--no-dynamic` is appended), then validate the SARIF file it writes."""
    checkout = tmp_path / "checkout"
    shutil.copytree(FIXTURES, checkout / "fixtures")
    argv = breakscan_command()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "breakscan", *argv[1:], "--no-dynamic"], cwd=checkout, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    output = argv[argv.index("--output") + 1]
    doc = json.loads((checkout / output).read_text(encoding="utf-8"))
    validate_schema(doc)
    check_github_requirements(doc)
    results = doc["runs"][0]["results"]
    assert results
    assert all(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].startswith("fixtures/") for r in results)
