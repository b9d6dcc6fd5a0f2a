"""Locator's spans equal libcst's PositionProvider for every node it can be asked about, where a
flagged text occurs more than once in the function (source order, not libcst's field order)."""

from __future__ import annotations

import ast
import textwrap

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from breakscan.static.positions import Locator, Span
from breakscan.static.walk import iter_functions, preorder

SOURCE = textwrap.dedent('''\
    import torch


    def deco(fn):
        return fn


    class Model(torch.nn.Module):
        @deco
        def forward(self, x, y=len("ab"), *, z: "a.b" = None) -> "a.b":
            a = x.item() if x.item() > 0 else deco(x.item())
            b = [x.item() for _ in range(2)] + [len("ab")]
            try:
                c = x.sum() > 0
            except ValueError as err:
                c = x.sum() > 0
                if c:
                    raise ValueError from err
            d = (lambda t: t.item())(x) + x.item()

            def inner(q=x.item()):
                return q.item() if q.sum() > 0 else x.item()

            while x.sum() > 0:
                x = x[0] - x[0]
            if not x.item():
                return -x[0], -x[0]
            return a, b, c, d, inner(), x.a.b, z.a.b
''')

KINDS = (cst.Call, cst.Attribute, cst.Subscript, cst.Comparison, cst.Name, cst.UnaryOperation,
         cst.BinaryOperation)


def _not_expressions(root: cst.CSTNode) -> set[int]:
    """ids of libcst Names that ast does not hold as a Name (an attribute's name, a parameter's,
    a def's, a keyword's, an `as` target's): checks never flag those."""
    out: set[int] = set()
    for node in preorder(root):
        if isinstance(node, cst.Attribute):
            out.add(id(node.attr))
        elif isinstance(node, (cst.Param, cst.FunctionDef, cst.ClassDef)):
            out.add(id(node.name))
        elif isinstance(node, cst.Arg) and node.keyword is not None:
            out.add(id(node.keyword))
        elif isinstance(node, cst.AsName):
            out.add(id(node.name))
    return out


def _nodes():
    module = cst.parse_module(SOURCE)
    tree = ast.parse(SOURCE)
    forward_ast = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "forward")
    forward = next(fn for fn in iter_functions(module) if fn.name.value == "forward")
    extent = (min([forward_ast.lineno, *(d.lineno for d in forward_ast.decorator_list)]),
              forward_ast.end_lineno, forward_ast.col_offset)
    return module, forward, extent


def test_every_repeated_text_gets_libcst_position():
    module, forward, extent = _nodes()
    exact = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    skip = _not_expressions(forward)
    nodes = [n for n in preorder(forward) if isinstance(n, KINDS) and id(n) not in skip]
    texts = [module.code_for_node(n) for n in nodes]
    repeated = [n for n, t in zip(nodes, texts) if texts.count(t) > 1]
    assert len(repeated) > 40  # the case this covers: a flagged text that occurs again unflagged
    for node in nodes:
        got = Locator(module, SOURCE).spans([(node, forward, extent)])[0]
        pos = exact[node]
        assert got == Span(pos.start.line, pos.start.column + 1, pos.end.line, pos.end.column + 1), \
            module.code_for_node(node)


@pytest.mark.parametrize("count", [2, 3])
def test_several_hits_of_one_text_in_one_call(count):
    module, forward, extent = _nodes()
    exact = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    items = [n for n in preorder(forward) if isinstance(n, cst.Call) and module.code_for_node(n) == "x.item()"]
    assert len(items) > count
    hits = items[-count:]
    got = Locator(module, SOURCE).spans([(n, forward, extent) for n in hits])
    assert got == [Span(exact[n].start.line, exact[n].start.column + 1, exact[n].end.line, exact[n].end.column + 1)
                   for n in hits]
