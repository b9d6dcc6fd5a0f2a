"""A value tested with `isinstance(v, Tensor)` (or `torch.is_tensor(v)`) is not a tensor where the
test is False: the `else`/`elif` of `if isinstance(v, Tensor):`, the body of
`if not isinstance(v, Tensor):`, and the code after `if isinstance(v, Tensor): return ...`.
A value tested `isinstance(v, (int, float))` is not a tensor in that test's body.
Parameters annotated `Tensor | float` (kornia's soft-argmax `temperature`) are compared as floats
there and Dynamo 2.13 traces the comparison: no BRK101. The tensor path keeps its kind: `bool()` of
a tensor comparison still breaks (BRK104, confirmed). Checked through the CLI."""

from __future__ import annotations

from tests.conftest import break_statuses, cli_findings, requires_torch, write_files

PACKAGE = {
    "heat/__init__.py": "",
    "heat/checks.py": '''
        import torch
        from torch import Tensor


        def check_positive(temperature: Tensor | float) -> None:
            if isinstance(temperature, torch.Tensor):
                if bool((temperature > 0).all()):
                    return
            elif temperature > 0:
                return
            raise ValueError(f"temperature must be positive, got {temperature}")
        ''',
    "heat/ops.py": '''
        import torch
        from torch import Tensor

        from .checks import check_positive


        def soft(x: Tensor, temperature: Tensor | float = 1.0) -> Tensor:
            check_positive(temperature)
            return torch.softmax(x / temperature, -1)


        def scale_by(x: Tensor, factor: Tensor | float) -> Tensor:
            if not isinstance(factor, (Tensor, list)):
                if factor < 0:
                    raise ValueError("negative factor")
                return x * factor
            return x * factor.abs()


        def shift(x: Tensor, offset: Tensor | float) -> Tensor:
            if torch.is_tensor(offset):
                return x + offset
            if offset > 1:
                offset = 1.0
            return x + offset


        def blur_sigma(x: Tensor, sigma: Tensor | float) -> Tensor:
            if isinstance(sigma, (int, float)):
                if sigma <= 0:
                    raise ValueError("sigma")
                sigma = torch.tensor([sigma])
            return x * sigma


        def breakscan_examples():
            x = torch.rand(4)
            yield blur_sigma, (x, 1.5)
            yield soft, (x,)
            yield soft, (x, torch.tensor(2.0))
            yield scale_by, (x, 2.0)
            yield shift, (x, 2.0)
        ''',
}


@requires_torch
def test_not_a_tensor_where_isinstance_is_false(tmp_path):
    write_files(tmp_path, PACKAGE)
    found = break_statuses(cli_findings(tmp_path, "check", "heat", "--show-refuted", cache=tmp_path / "cache"))
    assert ("BRK104", "checks.py", 8, "confirmed") in found  # bool((temperature > 0).all()) on the tensor path
    assert not {f for f in found if f[0] == "BRK101"}  # temperature > 0, factor < 0, offset > 1, sigma <= 0
    assert not {f for f in found if f[3] in ("refuted", "observed")}
