"""Functions passed to function transforms (`torch.func.vmap`, `grad`, `jacrev`...) are traced in
place by Dynamo 2.13: a break in their body is an ordinary graph break at its line (a warning, not
the error of a `torch.cond` branch), and the eager transform then calls the body as a frame of its
own, which Dynamo refuses under any backend but `eager` (GB0149, BRK417 at the body's `def`).
Through the CLI on a user package with a relative import and unannotated bodies."""

from __future__ import annotations

from tests.conftest import break_statuses, cli_findings, requires_torch, write_files

PACKAGE = {
    "fx/__init__.py": "",
    "fx/bodies.py": '''
        import torch


        def row_energy(r):
            print("row")
            return (r ** 2).sum()


        def loss(x):
            return (x.sin() ** 2).sum()


        def jac_body(x):
            print("jacobian")
            return x.sin()
        ''',
    "fx/model.py": '''
        import torch
        from torch.func import grad, vmap

        from .bodies import jac_body, loss, row_energy


        @torch.compile
        def energies(x):
            return vmap(row_energy)(x)


        @torch.compile
        def slope(x):
            return grad(loss)(x)


        @torch.compile
        def jac(x):
            return torch.func.jacrev(jac_body)(x)


        def breakscan_examples():
            x = torch.randn(3, 4)
            yield energies, (x,)
            yield slope, (x[0],)
            yield jac, (x[0],)
        ''',
}
EXPECTED = {("BRK201", "bodies.py", 6), ("BRK417", "bodies.py", 5),
            ("BRK201", "bodies.py", 15), ("BRK417", "bodies.py", 14)}


def test_breaks_in_transformed_functions_are_warnings_with_a_fallback_at_the_def(tmp_path):
    write_files(tmp_path, PACKAGE)
    findings = cli_findings(tmp_path, "check", "fx", "--no-dynamic", "--no-cache")
    assert {f[:3] for f in break_statuses(findings)} == EXPECTED  # `loss` does not break: no BRK417
    assert {f["severity"] for f in findings if f["rule_id"] in ("BRK201", "BRK417")} == {"warning"}
    fallback = next(f for f in findings if f["rule_id"] == "BRK417" and f["line"] == 5)
    assert fallback["extra"]["function_transform"] == "torch.func.vmap"
    assert fallback["extra"]["requires"][0].endswith("bodies.py:6")


@requires_torch
def test_dynamo_breaks_in_the_bodies_and_refuses_their_frames(tmp_path):
    write_files(tmp_path, PACKAGE)
    found = break_statuses(cli_findings(tmp_path, "check", "fx", "--show-refuted", cache=tmp_path / "cache"))
    assert {f for f in found if f[3] != "observed"} == {(*f, "confirmed") for f in EXPECTED}
