"""The read-only traversals of static/walk.py against libcst's own visitor."""

from __future__ import annotations

import libcst as cst

from breakscan.static import walk as walk_module
from breakscan.static.walk import iter_nodes, preorder

SOURCE = '''
def f(x, y):
    a = x + y
    if a.sum() > 0:
        return [g(v) for v in (a, b)]
    return {"k": x[1:2], **y}
'''


class _Collect(cst.CSTVisitor):
    """libcst's visitor, for the expected order and membership."""

    def __init__(self, kind):
        super().__init__()
        self.kind, self.found = kind, []

    def on_visit(self, node):
        if isinstance(node, self.kind):
            self.found.append(node)
        return True


def _expected(node, kind):
    collect = _Collect(kind)
    node.visit(collect)
    return collect.found


def test_iter_nodes_matches_libcst_visitor_for_abstract_and_tuple_kinds():
    module = cst.parse_module(SOURCE)
    for kind in (cst.Name, cst.Call, cst.BaseExpression, cst.BaseSmallStatement, (cst.If, cst.Return)):
        assert [id(n) for n in iter_nodes(module, kind)] == [id(n) for n in _expected(module, kind)], kind


def test_preorder_is_kept_per_node_and_distinct_trees_do_not_mix():
    first = cst.parse_module(SOURCE)
    assert preorder(first) is preorder(first)  # the second search reuses the list
    names = [n.value for n in iter_nodes(first, cst.Name)]
    other = cst.parse_module("def h(q):\n    return q\n")
    assert [n.value for n in iter_nodes(other, cst.Name)] == ["h", "q", "q"]
    assert [n.value for n in iter_nodes(first, cst.Name)] == names


def test_preorder_cache_is_bounded():
    trees = [cst.parse_module(f"x{i} = {i}\n") for i in range(walk_module._PREORDER_SIZE + 10)]
    for tree in trees:
        preorder(tree)
    assert len(walk_module._PREORDER) == walk_module._PREORDER_SIZE
    assert [n.value for n in iter_nodes(trees[0], cst.Name)] == ["x0"]  # dropped, then walked again
