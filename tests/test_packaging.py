"""A non-editable install carries the rule catalog: `breakscan` run elsewhere finds every rule."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import ROOT


def test_wheel_install_finds_every_rule_from_another_directory(tmp_path):
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                    "--target", str(target), str(ROOT)], check=True, cwd=tmp_path)
    assert (target / "breakscan" / "_rules").is_dir()
    templates = target / "breakscan" / "report" / "templates"  # --format html's Jinja2 templates
    assert {p.name for p in templates.iterdir()} >= {"report.html", "finding.html", "report.css", "report.js"}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "PYTHONPATH": str(target)}
    out = subprocess.run([sys.executable, "-m", "breakscan", "rules", "--format", "json"], cwd=elsewhere,
                         env=env, capture_output=True, text=True, check=True)
    installed = {r["id"] for r in json.loads(out.stdout)}
    in_repo = {p.stem for p in (ROOT / "rules").glob("*.toml")}
    assert installed == in_repo and installed
    probe = subprocess.run([sys.executable, "-c", "import breakscan, sys; print(breakscan.__file__)"],
                           cwd=elsewhere, env=env, capture_output=True, text=True, check=True)
    assert probe.stdout.startswith(str(target))
