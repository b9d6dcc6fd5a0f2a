"""The torch version matrix: breakscan's rule-example, fixture and dynamic-pass tests on each minor
release from the oldest the `dynamic` extra admits to the newest.

    python bench/versions.py                  # every release the `dynamic` extra admits
    python bench/versions.py 2.10 2.14        # some releases (older ones too)
    python bench/versions.py --keep --readme --update-verified

For each release: a venv `/tmp/torch-X.Y` (reused when it already has breakscan), `pip install
torch==<release>` (the local 2.13.0 CPU wheel; the registry's CUDA builds otherwise, which run
on the CPU), then breakscan next to it with a constraints file pinning torch (`pip install -c
c.txt -e '.[test]'`; without it pip swaps torch), then `pytest -m versions` (the tests marked
`versions`: tests/test_rule_examples.py, tests/test_fixtures.py, tests/test_dynamic_*.py) with a
JUnit XML report. The venv is deleted after its run unless `--keep` (each is 3-6 GB).

Writes `bench/versions.json` (per release: passed, failed, skipped, seconds, the failing test
ids); `--readme` rewrites the table between the `torch-matrix` markers in README.md;
`--update-verified` adds the release to `verified` in every rule file whose breaking and fixed
examples both passed there (not skipped).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "versions.json"
README = ROOT / "README.md"
START, END = "<!-- torch-matrix:start -->", "<!-- torch-matrix:end -->"

# minor -> the release installed (the newest patch release of each minor on the registry).
RELEASES = {
    "2.4": "2.4.1", "2.5": "2.5.1", "2.6": "2.6.0", "2.7": "2.7.1", "2.8": "2.8.0", "2.9": "2.9.1",
    "2.10": "2.10.0", "2.11": "2.11.0", "2.12": "2.12.1", "2.13": "2.13.0", "2.14": "2.14.1",
    "2.15": "2.15.0",
}
def admitted() -> list[str]:
    """The minors in RELEASES that pyproject.toml's `dynamic` extra admits (`torch>=X.Y`)."""
    import tomllib

    extra = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    floor = next(re.fullmatch(r"torch>=(\d+)\.(\d+)", d) for d in extra["dynamic"] if d.startswith("torch"))
    low = (int(floor.group(1)), int(floor.group(2)))
    return [m for m in RELEASES if tuple(map(int, m.split("."))) >= low]


_RULE_TEST = re.compile(r"^test_(breaking_example_is_confirmed_by_dynamo|fixed_example_compiles_without_breaks)"
                        r"\[(BRK\d{3})\]$")


def _pip(venv: Path, *args: str, log) -> None:
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "--no-cache-dir", *args],
                   cwd=ROOT, check=True, stdout=log, stderr=subprocess.STDOUT)


def ensure_venv(minor: str, log) -> Path:
    """`/tmp/torch-<minor>` with torch pinned to RELEASES[minor] and breakscan editable from ROOT.

    Raises subprocess.CalledProcessError when an install fails.
    """
    venv = Path(f"/tmp/torch-{minor}")
    if (venv / "bin" / "breakscan").exists():
        return venv
    release = RELEASES[minor]
    if not (venv / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        _pip(venv, f"torch=={release}", log=log)
    constraints = venv / "constraints.txt"
    constraints.write_text(f"torch=={release}\n", encoding="utf-8")
    _pip(venv, "-c", str(constraints), "-e", ".[test]", log=log)
    return venv


def run_tests(venv: Path, minor: str, log) -> dict:
    """`pytest -m versions` in `venv`; returns counts, seconds, failing ids and per-rule outcomes."""
    xml = Path(f"/tmp/breakscan-versions-{minor}.xml")
    started = time.monotonic()
    subprocess.run([str(venv / "bin" / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "versions",
                    f"--junitxml={xml}"], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    seconds = time.monotonic() - started
    out = {"passed": 0, "failed": 0, "skipped": 0, "seconds": round(seconds), "failures": [], "rules": {}}
    if not xml.exists():
        out["failed"] = -1  # pytest did not get as far as collecting
        return out
    for case in ET.parse(xml).getroot().iter("testcase"):
        name = case.get("name", "")
        state = ("failed" if case.find("failure") is not None or case.find("error") is not None
                 else "skipped" if case.find("skipped") is not None else "passed")
        out[state] += 1
        if state == "failed":
            out["failures"].append(f"{case.get('classname', '')}::{name}")
        m = _RULE_TEST.match(name)
        if m:
            out["rules"].setdefault(m.group(2), []).append(state)
    xml.unlink()
    return out


def torch_version(venv: Path) -> str:
    """The torch version installed in `venv`, as torch reports it."""
    return subprocess.run([str(venv / "bin" / "python"), "-c", "import torch; print(torch.__version__)"],
                          capture_output=True, text=True, check=True).stdout.strip()


def readme_table(results: dict) -> str:
    """The Markdown table of `results` (minor -> outcome), oldest release first."""
    rows = ["| torch | build | passed | failed | skipped | minutes | failing |", "|---|---|---|---|---|---|---|"]
    for minor in sorted(results, key=lambda v: tuple(map(int, v.split(".")))):
        r = results[minor]
        if "error" in r:
            rows.append(f"| {r.get('torch', minor)} | — | — | — | — | — | install failed: {r['error']} |")
            continue
        failing = ", ".join(f"`{f.split('::')[-1]}`" for f in r["failures"][:6])
        if len(r["failures"]) > 6:
            failing += f" and {len(r['failures']) - 6} more"
        build = r["torch"].partition("+")[2] or "cuda"
        rows.append(f"| {r['torch'].partition('+')[0]} | {build} | {r['passed']} | {r['failed']} | {r['skipped']} | "
                    f"{r['seconds'] / 60:.0f} | {failing or '—'} |")
    return "\n".join(rows) + "\n"


def write_readme(results: dict) -> None:
    """Replace the table between the torch-matrix markers. Raises ValueError without them."""
    text = README.read_text(encoding="utf-8")
    head, sep, rest = text.partition(START)
    _, sep2, tail = rest.partition(END)
    if not sep or not sep2:
        raise ValueError("README has no torch-matrix markers")
    README.write_text(f"{head}{START}\n{readme_table(results)}{END}{tail}", encoding="utf-8")


def update_verified(minor: str, rules: dict[str, list[str]]) -> list[str]:
    """Add `minor` to `verified` of each rule whose example tests all passed on it; returns their ids."""
    done = []
    for rule_id, states in sorted(rules.items()):
        if not states or any(s != "passed" for s in states):
            continue
        path = ROOT / "rules" / f"{rule_id}.toml"
        text = path.read_text(encoding="utf-8")
        m = re.search(r"^verified = \[(.*)\]$", text, re.MULTILINE)
        if not m:
            continue
        versions = set(re.findall(r'"([^"]+)"', m.group(1))) | {minor}
        listed = ", ".join(f'"{v}"' for v in sorted(versions, key=lambda v: tuple(map(int, v.split(".")))))
        path.write_text(text[:m.start()] + f"verified = [{listed}]" + text[m.end():], encoding="utf-8")
        done.append(rule_id)
    return done


def main(argv: list[str] | None = None) -> int:
    """Run the matrix; exit 1 when any release failed a test or could not be installed."""
    parser = argparse.ArgumentParser(prog="python bench/versions.py")
    parser.add_argument("minors", nargs="*", help=f"minor releases among {', '.join(RELEASES)} "
                        "(default: those the dynamic extra admits)")
    parser.add_argument("--keep", action="store_true", help="keep each /tmp/torch-X.Y venv after its run")
    parser.add_argument("--readme", action="store_true", help="rewrite README.md's version table")
    parser.add_argument("--update-verified", action="store_true", help="record passing releases in rules/*.toml")
    args = parser.parse_args(argv)
    unknown = [m for m in args.minors if m not in RELEASES]
    if unknown:
        parser.error(f"unknown minor release(s) {unknown}; known: {', '.join(RELEASES)}")
    results = json.loads(RESULTS.read_text(encoding="utf-8")) if RESULTS.exists() else {}
    bad = False
    for minor in args.minors or admitted():
        log_path = Path(f"/tmp/breakscan-versions-{minor}.log")
        print(f"torch {RELEASES[minor]}: installing (log {log_path})", flush=True)
        with log_path.open("w", encoding="utf-8") as log:
            try:
                venv = ensure_venv(minor, log)
            except subprocess.CalledProcessError as exc:
                results[minor] = {"torch": RELEASES[minor], "error": f"pip exited {exc.returncode}"}
                bad = True
                continue
            print(f"torch {RELEASES[minor]}: testing", flush=True)
            outcome = run_tests(venv, minor, log)
        outcome["torch"] = torch_version(venv)
        rules = outcome.pop("rules")
        results[minor] = outcome
        bad |= outcome["failed"] != 0
        print(f"torch {outcome['torch']}: {outcome['passed']} passed, {outcome['failed']} failed, "
              f"{outcome['skipped']} skipped in {outcome['seconds']} s", flush=True)
        if args.update_verified:
            print(f"  verified on {minor}: {len(update_verified(minor, rules))} rules", flush=True)
        RESULTS.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        if args.readme:
            write_readme(results)
        if not args.keep:
            shutil.rmtree(venv, ignore_errors=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
