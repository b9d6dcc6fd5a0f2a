"""Issue 7: fuzz the static pass. Generated programs (hypothesmith's grammar-based and CST-based
strategies, plus a torch-flavoured grammar of our own) and mutated fixture files must give
findings or error findings, never an exception. Bounded to a few seconds per strategy; the long
run is `python bench/robustness.py --fuzz N`."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from breakscan.catalog import load_catalog
from breakscan.findings import Finding, Kind
from breakscan.static.engine import scan_files

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
FIXTURE_FILES = sorted(FIXTURES.glob("*.py"))
RULES = list(load_catalog().values())
SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])


def scan_bytes(data: bytes, name: str = "fuzzed.py") -> list[Finding]:
    """Scan `data` as one file next to a good model; assert the static pass's contract."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_bytes(data)
        good = Path(tmp) / "zz_good.py"
        good.write_text("import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
                        "        return x.item()\n")
        result = scan_files([path, good], RULES)  # must not raise
    for f in result.findings:
        assert isinstance(f, Finding)
        assert f.line >= 1 and f.column >= 1
        if f.kind is Kind.ERROR:
            assert f.rule_id in ("BRK900", "BRK901") and "\n" not in f.message, f
    assert not [f for f in result.findings if f.rule_id == "BRK900"], result.findings  # no internal error
    assert ("BRK102", 4) in {(f.rule_id, f.line) for f in result.findings if f.path == str(good)}
    return [f for f in result.findings if f.path == str(path)]


# torch-flavoured programs: classes with forward, decorators, ifs on tensors, calls ------------
NAMES = st.sampled_from(["x", "y", "h", "mask", "out", "n", "self.w", "self.scale", "i", "cfg"])
EXPRS = st.recursive(
    NAMES | st.sampled_from(["1", "0.5", "None", "True", "'s'", "x.shape[0]", "len(x)"]),
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(["+", "*", "-", "@", ">", "==", "and", "or", "/"]), inner)
        .map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(st.sampled_from(["torch.relu", "torch.where", "print", "int", "float", "len", "range",
                                   "self.layer", "logger.info", "time.time", "random.random", "helper",
                                   "torch.nonzero", "x.item", "x.tolist", "x.sum", "np.random.rand"]),
                  st.lists(inner, max_size=3)).map(lambda t: f"{t[0]}({', '.join(t[1])})"),
        st.tuples(inner, st.sampled_from(["item()", "sum()", "shape", "dtype", "tolist()", "nonzero()",
                                          "requires_grad_()", "data_ptr()", "size(0)"]))
        .map(lambda t: f"({t[0]}).{t[1]}" if t[0][0].isdigit() else f"{t[0]}.{t[1]}"),
        st.tuples(inner, inner).map(lambda t: f"{t[0]}[{t[1]}]"),
        st.tuples(inner, inner, inner).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})"),
        inner.map(lambda e: f"(not {e})"),
        inner.map(lambda e: f"[{e} for i in range(3)]"),
        inner.map(lambda e: f"(lambda a: {e})"),
        inner.map(lambda e: f"'{{}}'.format({e})"),
    ),
    max_leaves=8,
)


@st.composite
def statements(draw, depth: int = 0) -> list[str]:
    out = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["assign", "augassign", "expr", "if", "for", "while", "with", "try",
                                     "return", "assert", "del", "nested", "raise"]))
        e = draw(EXPRS)
        if kind in ("if", "for", "while", "with", "try", "nested") and depth < 3:
            body = ["    " + line for line in draw(statements(depth + 1))]
            head = {"if": f"if {e}:", "for": f"for i in {e}:", "while": f"while {e}:",
                    "with": f"with {e} as ctx:", "try": "try:",
                    "nested": f"def inner(a, *args, k={e}, **kw):"}[kind]
            out += [head, *body]
            if kind == "try":
                out += ["except Exception as err:", "    pass", "finally:", "    y = 1"]
            elif kind == "if" and draw(st.booleans()):
                out += ["elif torch.compiler.is_compiling():", "    pass", "else:",
                        *("    " + line for line in draw(statements(depth + 1)))]
        elif kind == "assign":
            out.append(f"{draw(NAMES)} = {e}")
        elif kind == "augassign":
            out.append(f"{draw(NAMES)} += {e}")
        elif kind == "return":
            out.append(f"return {e}")
        elif kind == "assert":
            out.append(f"assert {e}, 'msg'")
        elif kind == "del":
            out.append("del cfg")
        elif kind == "raise":
            out.append(f"raise ValueError({e})")
        else:
            out.append(e)
    return out


@st.composite
def torch_modules(draw) -> str:
    lines = ["import torch", "import torch.nn as nn", "import logging, time, random",
             "import numpy as np", "logger = logging.getLogger(__name__)", "COUNTER = 0"]
    for k in range(draw(st.integers(1, 3))):
        decorator = draw(st.sampled_from(["", "@torch.compile", "@torch.compile(fullgraph=False)",
                                          "@torch.compiler.disable", "@staticmethod", "@functools.wraps(f)"]))
        shape = draw(st.sampled_from(["class", "function"]))
        body = ["    " + line for line in draw(statements())]
        if shape == "class":
            lines += [f"class Block{k}(nn.Module):", "    def __init__(self):", "        super().__init__()",
                      "        self.layer = nn.Linear(4, 4)", "        self.w = nn.Parameter(torch.ones(4))",
                      "        self.scale = 2.0", "        self.calls = 0"]
            if decorator and decorator != "@functools.wraps(f)":
                lines.append("    " + decorator)
            lines += ["    def forward(self, x, mask=None, n: int = 3):", *("    " + b for b in body)]
        else:
            if decorator:
                lines.append(decorator)
            lines += [f"def helper{k}(x, y=None):", *body]
    if draw(st.booleans()):
        lines.append("compiled = torch.compile(Block0() if 'Block0' in dir() else helper0)")
    return "\n".join(lines) + "\n"


@SETTINGS
@given(torch_modules())
def test_fuzz_torch_flavoured_programs(source):
    scan_bytes(source.encode())


# mutated fixtures: byte flips, deletions, insertions, truncation ------------------------------
@st.composite
def mutated_fixtures(draw) -> bytes:
    data = bytearray(draw(st.sampled_from(FIXTURE_FILES)).read_bytes())
    for _ in range(draw(st.integers(1, 6))):
        if not data:
            break
        op = draw(st.sampled_from(["flip", "delete", "insert", "truncate", "duplicate"]))
        i = draw(st.integers(0, len(data) - 1))
        if op == "flip":
            data[i] ^= 1 << draw(st.integers(0, 7))
        elif op == "delete":
            del data[i:i + draw(st.integers(1, 40))]
        elif op == "insert":
            data[i:i] = draw(st.sampled_from([b"(", b")", b":", b"\n", b"\t", b"\x00", b"\xff", b"\r",
                                              b"\"\"\"", b"\\", b"lambda", b" if x.item() else ", b"\xef\xbb\xbf",
                                              b"# -*- coding: latin-1 -*-\n", b"\x1b[31m"]))
        elif op == "truncate":
            del data[i:]
        else:
            j = draw(st.integers(i, min(len(data), i + 200)))
            data[j:j] = data[i:j]
    return bytes(data)


@SETTINGS
@given(mutated_fixtures())
def test_fuzz_mutated_fixtures(data):
    scan_bytes(data)


# hypothesmith: programs from CPython's grammar and from libcst's node types -------------------
hypothesmith = pytest.importorskip("hypothesmith")


@settings(SETTINGS, max_examples=40)
@given(hypothesmith.from_grammar())
def test_fuzz_hypothesmith_grammar(source):
    scan_bytes(source.encode("utf-8", "surrogatepass"))


@settings(SETTINGS, max_examples=40)
@given(hypothesmith.from_node())
def test_fuzz_hypothesmith_nodes(source):
    findings = scan_bytes(source.encode("utf-8", "surrogatepass"))
    # from_node builds valid libcst trees: CPython may still refuse some (then a BRK901 finding)
    assert all(f.rule_id != "BRK900" for f in findings)
