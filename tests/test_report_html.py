"""`--format html`: one self-contained page, checked in a real browser (Debian's headless Chromium).

The browser tests run the CLI as a user does, on a user's model written in a fresh directory,
with the dynamic pass (real Dynamo), then open the page from disk with Playwright driving
`/usr/bin/chromium` (never a browser Playwright downloads): no console error, no request but
the page itself, every finding of the same run's JSON report on the page, the entries' graphs
drawn as bars with the breaks between them; with JavaScript off every finding is still shown.
They skip when Chromium is absent (`.ci/run` installs it).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from breakscan.catalog import load_catalog
from breakscan.findings import EntryReport, Finding, Frame, Kind, Report, Status
from breakscan.report import html
from tests.conftest import ROOT, requires_torch

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

MODEL = '''\
import torch
from torch import nn


def scale_of(x):
    return x.abs().max().item()


class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        h = torch.relu(self.proj(x))
        print("<script>alert('x')</script>", h.shape)
        if h.sum() > 0:
            h = h * 2
        return h / scale_of(h)


def breakscan_examples():
    model = Gate()
    yield model, (torch.randn(4, 8),)
    yield model, (torch.randn(6, 8),)
'''

TRAIN = '''\
import torch


@torch.compile
def step(x):
    y = x * 2
    value = y.sum().item()
    return y + value


for n in (4, 4, 6):
    step(torch.randn(n))
print("done")
'''


def breakscan(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "breakscan", *args], cwd=cwd, env=env, capture_output=True,
                           text=True, timeout=400)


# --- the page's text, without a browser -------------------------------------------------------

def _finding(path: Path, **changes) -> Finding:
    return Finding(rule_id="BRK102", kind=Kind.GRAPH_BREAK, path=str(path), line=3, column=9, end_column=17,
                   message="`x.item()` reads a tensor's value", gb_ids=("GB0124",)).replace(**changes)


def test_untrusted_text_is_escaped_and_control_characters_are_shown(tmp_path: Path) -> None:
    model = tmp_path / "model.py"
    model.write_text("def f(x):\n    # </code><img src=x onerror=alert(1)>\n    y = x.item()\u202e\n", encoding="utf-8")
    finding = _finding(model, message="<script>alert('message')</script>", explanation="a & b <b>bold</b>",
                       hints=("<iframe src=//evil>",), stack=(Frame(str(model), 3, "<lambda>"),))
    page = html.render(Report(root=tmp_path, findings=[finding]), load_catalog())
    assert "<script>alert" not in page and "<img src=x" not in page and "<iframe" not in page
    assert "&lt;script&gt;alert(&#39;message&#39;)&lt;/script&gt;" in page
    assert "&lt;/code&gt;&lt;img src=x onerror=alert(1)&gt;" in page  # the code frame's comment line
    assert "a &amp; b &lt;b&gt;bold&lt;/b&gt;" in page and "&lt;lambda&gt;" in page
    assert "\u202e" not in page and "\\u202e" in page  # a bidi override is shown, not applied
    fix = html.render(Report(root=tmp_path, findings=[finding.replace(fix="Use `x.sum() < 0` or `<b>`")]),
                      load_catalog())
    assert "Use <code>x.sum() &lt; 0</code> or <code>&lt;b&gt;</code>" in fix  # code spans, still escaped


def test_page_fetches_nothing_and_runs_only_its_own_script(tmp_path: Path) -> None:
    model = tmp_path / "model.py"
    model.write_text("def f(x):\n    pass\n    y = x.item()\n", encoding="utf-8")
    page = html.render(Report(root=tmp_path, findings=[_finding(model)]), load_catalog())
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page).group(1)
    assert "default-src 'none'" in csp and re.search(r"script-src 'sha256-[A-Za-z0-9+/=]+'", csp)
    assert page.count("<script>") == 1 and "<link" not in page and " src=" not in page
    assert "https://" not in page.replace('href="https://', "")  # links only, never a resource
    assert f'<a class="source" href="{model.resolve().as_uri()}">model.py</a>' in page  # back to the source


def test_entry_bars_follow_the_timeline_and_mark_fallbacks_and_recompiles(tmp_path: Path) -> None:
    model = tmp_path / "model.py"
    model.write_text("def f(x):\n    pass\n    y = x.item()\n    z = 1\n    w = 2\n", encoding="utf-8")
    brk = _finding(model, status=Status.CONFIRMED, entry="model.py:f")
    fallback = _finding(model, rule_id="GB0007", kind=Kind.FRAME_FALLBACK, line=5, status=Status.OBSERVED,
                        entry="model.py:f")
    recompile = _finding(model, rule_id="BRK510", kind=Kind.RECOMPILE, line=1, status=Status.OBSERVED,
                         entry="model.py:f", message="Recompiled `f` (call 2): guard failed: x.size()[0] == 4",
                         extra={"guard": "tensor 'x' size mismatch at index 0", "guard_class": "shape",
                                "calls": [2]})
    entry = EntryReport(name="model.py:f", path=str(model), line=1, calls=2, graphs=2, ops_per_graph=[7, 3],
                        graph_breaks=2, recompiles=1, fullgraph_ok=False, timeline=[
                            {"graph": 0, "ops": 7},
                            {"break": {"path": str(model), "line": 3, "gb_id": "GB0124", "gb_type": "item",
                                       "fallback": False}},
                            {"graph": 1, "ops": 3},
                            {"break": {"path": str(model), "line": 5, "gb_id": "GB0007", "gb_type": "skip",
                                       "fallback": True}},
                            {"break": {"path": str(model), "line": 5, "gb_id": "GB0007", "gb_type": "skip",
                                       "fallback": False}},
                            {"break": {"path": str(model), "line": 3, "gb_id": "GB0124", "gb_type": "item",
                                       "fallback": False}}])
    report = Report(root=tmp_path, findings=[brk, fallback, recompile], entries=[entry], dynamic_ran=True)
    page = html.render(report, load_catalog())
    timeline = page[page.index('<ol class="timeline"'):page.index("</ol>", page.index('<ol class="timeline"'))]
    assert re.findall(r'style="flex-grow: (\d+)"', timeline) == ["7", "3"]
    assert 'class="graph largest"' in timeline  # the 7-op graph: the one the worst split cuts
    cuts = [re.findall(r'<a class="(\w+)" href="#(f\d+)".*?line (\d+)( ×\d+)?</span><span class="cut-id">(\w+)', cut)
            for cut in re.findall(r'<li class="cut">(.*?)</li>', timeline)]
    anchors = dict(re.findall(r'<article class="finding[^"]*" id="(f\d+)"[^>]* data-rule="(\w+)"', page))
    named = [[(kind, line + times, gb, anchors[a]) for kind, a, line, times, gb in cut] for cut in cuts]
    # Breaks with no graph between them are one marker, each distinct break once, repeats counted.
    assert named == [[("brk", "3", "GB0124", "BRK102")],
                     [("fallback", "5 ×2", "GB0007", "GB0007"), ("brk", "3", "GB0124", "BRK102")]]
    assert "recompile</span> <a href=" in page and "guard failed: x.size()[0] == 4" in page
    assert "tensor &#39;x&#39; size mismatch at index 0" in page and "shape (call 2)" in page


def test_library_finding_is_shown_where_it_happened_under_the_call_site(tmp_path: Path) -> None:
    project, libs = tmp_path / "project", tmp_path / "libs"
    project.mkdir(), libs.mkdir()
    (project / "model.py").write_text("from fastnorm import norm\n\ndef f(x):\n    return norm(x)\n")
    (libs / "fastnorm.py").write_text("def norm(x):\n    s = x.sum().item()\n    return x / s\n")
    observed = Finding(rule_id="GB0124", kind=Kind.GRAPH_BREAK, path=str(project / "model.py"), line=4, column=12,
                       message="Unsupported Tensor.item() call", status=Status.OBSERVED,
                       stack=(Frame(str(project / "model.py"), 4, "f"), Frame(str(libs / "fastnorm.py"), 2, "norm")))
    page = html.render(Report(root=project, findings=[observed]), load_catalog())
    libraries = page[page.index('<section id="libraries">'):]
    assert "<h3>model.py:4 reached</h3>" in libraries
    assert '<a class="where" href="#f1">../libs/fastnorm.py:2</a>' in libraries
    assert 'data-location="model.py:4:12"' in libraries  # the finding's own location, as in JSON
    assert "    <mark>s = x.sum().item()</mark>" in libraries  # the library's line, its code marked
    assert "In your code: 0 finding(s)" in page


def test_call_order_puts_each_break_after_the_graph_it_ends() -> None:
    from breakscan.dynamic.runner import call_order

    def brk(line: int, **more) -> dict:
        return {"break": {"path": "/p/m.py", "line": line, "gb_id": "GB0124", "gb_type": "item", **more}}

    # Dynamo logs a break, then compiles the graph that ends at it; a graph after no break ends at a return.
    order = [brk(16), {"graph": 0, "ops": 4}, brk(17), brk(18, fallback=True), {"graph": 1, "ops": 2},
             {"graph": 2, "ops": 1}]
    got = [("g", e["ops"]) if "graph" in e else (e["break"]["line"], e["break"]["fallback"]) for e in call_order(order, [])]
    assert got == [("g", 4), (16, False), (17, False), ("g", 2), (18, True), ("g", 1)]


# --- in the browser ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium; .ci/run installs it)")
    playwright = pytest.importorskip("playwright.sync_api", reason="playwright (the test extra) is not installed")
    with playwright.sync_playwright() as pw:
        args = ["--no-sandbox"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=args)
        yield chromium
        chromium.close()


class Visit:
    """A page opened from disk, with every console message, page error and request recorded."""

    def __init__(self, browser, path: Path, javascript: bool = True) -> None:
        self.context = browser.new_context(java_script_enabled=javascript)
        self.page = self.context.new_page()
        self.console: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}")
                     if m.type in ("error", "warning") else None)
        self.page.on("pageerror", lambda e: self.console.append(f"pageerror: {e}"))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.url = path.resolve().as_uri()
        self.page.goto(self.url)
        self.page.wait_for_load_state("load")

    def assert_clean(self) -> None:
        assert self.console == [] and self.requests == [self.url]

    def close(self) -> None:
        self.context.close()


@pytest.fixture(scope="module")
def model_run(tmp_path_factory):
    """The user's model, scanned once as HTML and once as JSON (the same findings)."""
    project = tmp_path_factory.mktemp("project")
    (project / "model.py").write_text(MODEL, encoding="utf-8")
    for fmt in ("html", "json"):
        proc = breakscan("model.py", "--exit-zero", "--format", fmt, "-o", f"report.{fmt}", cwd=project)
        assert proc.returncode == 0, proc.stderr
    return project


@pytest.mark.dynamic
@requires_torch
def test_every_finding_is_on_the_page_with_no_error_and_no_request(browser, model_run: Path) -> None:
    report = json.loads((model_run / "report.json").read_text())
    visit = Visit(browser, model_run / "report.html")
    try:
        visit.assert_clean()
        page = visit.page
        shown = {(a.get_attribute("data-rule"), a.get_attribute("data-location"))
                 for a in page.locator("article.finding").all()}
        expected = {(f["rule_id"], f"{f['path']}:{f['line']}:{f['column']}") for f in report["findings"]}
        assert shown == expected and len(expected) >= 5
        assert page.locator("article.finding").count() == len(report["findings"])
        # Untrusted text is text: the print's `<script>` argument is shown, never run.
        assert "print(\"<script>alert('x')</script>\", h.shape)" in page.locator("#own").inner_text()
        facts = page.locator(".facts").inner_text()
        assert report["torch_version"] in facts and "cpu" in facts and "breakscan model.py --exit-zero" in facts
    finally:
        visit.close()


@pytest.mark.dynamic
@requires_torch
def test_entry_picture_draws_each_graph_and_labels_each_break(browser, model_run: Path) -> None:
    report = json.loads((model_run / "report.json").read_text())
    [entry] = report["entries"]
    # In call order: the first graph ends at the print, the second at the branch, the third at the
    # call of the helper whose `.item()` breaks (Dynamo reports the innermost line).
    events = [("graph", e["ops"] > 0) if "graph" in e else (e["break"]["line"], e["break"]["gb_id"])
              for e in entry["timeline"]]
    assert events[:6] == [("graph", True), (16, "GB0059"), ("graph", True), (17, "GB0170"), ("graph", True),
                          (6, "GB0124")]
    visit = Visit(browser, model_run / "report.html")
    try:
        bars = visit.page.locator("#entries .timeline .graph")
        assert [int(t) for t in bars.all_inner_texts()] == [e["ops"] for e in entry["timeline"] if "graph" in e]
        cuts = visit.page.locator("#entries .timeline .cut").all_inner_texts()
        expected = [f"line {e['break']['line']}\n{e['break']['gb_id']}" for e in entry["timeline"] if "break" in e]
        assert [" ".join(c.split()) for c in cuts] == [" ".join(c.split()) for c in expected] and cuts
        # Each break links to its finding; the recompiles are listed under the bars.
        first = visit.page.locator("#entries .timeline .cut a").first
        target = visit.page.locator(first.get_attribute("href"))
        assert target.get_attribute("data-rule") == "BRK201"
        assert visit.page.locator("#entries .recompiles li").count() == 2
    finally:
        visit.close()


@pytest.mark.dynamic
@requires_torch
def test_filters_hide_findings_by_status_rule_and_file(browser, model_run: Path) -> None:
    visit = Visit(browser, model_run / "report.html")
    try:
        page = visit.page
        total = page.locator("article.finding").count()
        assert page.locator("#filters").is_visible() and page.locator("#shown").inner_text() == f"{total} of {total} shown"
        page.locator('#filters input[value="observed"]').uncheck()
        observed = page.locator('article.finding[data-status="observed"]')
        assert observed.count() == 2 and all(not observed.nth(i).is_visible() for i in range(2))
        assert page.locator("#shown").inner_text() == f"{total - 2} of {total} shown"
        page.locator('#filters input[value="observed"]').check()
        page.select_option('#filters select[name="rule"]', "BRK101")
        visible = [a for a in page.locator("article.finding").all() if a.is_visible()]
        assert [a.get_attribute("data-rule") for a in visible] == ["BRK101"]
        page.select_option('#filters select[name="rule"]', "")
        page.select_option('#filters select[name="file"]', "model.py")
        assert page.locator("#shown").inner_text() == f"{total} of {total} shown"
        visit.assert_clean()
    finally:
        visit.close()


@pytest.mark.dynamic
@requires_torch
def test_without_javascript_every_finding_and_the_pictures_are_shown(browser, model_run: Path) -> None:
    visit = Visit(browser, model_run / "report.html", javascript=False)
    try:
        page = visit.page
        findings = page.locator("article.finding")
        assert findings.count() >= 5 and all(findings.nth(i).is_visible() for i in range(findings.count()))
        assert not page.locator("#filters").is_visible()
        assert page.locator("#entries .timeline .graph").first.is_visible()
        page.locator("article.finding details.stack summary").first.click()  # <details> needs no script
        assert page.locator("article.finding details.stack ol").first.is_visible()
        visit.assert_clean()
    finally:
        visit.close()


@pytest.mark.dynamic
@requires_torch
def test_run_mode_writes_the_page_for_the_program(browser, tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(TRAIN, encoding="utf-8")
    proc = breakscan("run", "--format", "html", "-o", "report.html", "--exit-zero", "train.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "done"  # the program's output passes through; the report went to the file
    visit = Visit(browser, tmp_path / "report.html")
    try:
        visit.assert_clean()
        page = visit.page
        item_line = TRAIN.splitlines().index("    value = y.sum().item()") + 1
        assert page.locator(f'article.finding[data-rule="BRK102"][data-status="confirmed"] .where').inner_text() \
            == f"train.py:{item_line}:13"
        recompiles = page.locator('article.finding[data-rule="BRK510"] .message').all_inner_texts()
        assert "Recompiled step: guard failed: tensor 'x' size mismatch at index 0. expected 4, actual 6" in recompiles  # `step` is code
        assert page.locator("#entries .timeline .graph").count() >= 2
        assert f"line {item_line}" in page.locator("#entries .timeline .cut").first.inner_text()
        assert "breakscan run --format html -o report.html --exit-zero train.py" in page.locator("#command").inner_text()
    finally:
        visit.close()

