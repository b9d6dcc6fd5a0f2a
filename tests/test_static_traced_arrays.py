"""Two ways a tensor reaches code that reads as Python values, both measured with `breakscan run`
on 2.13 and 2.15:

- `t.numpy()` inside a compiled function is no copy out of the graph: Dynamo traces the array as
  a tensor (torch._numpy), as it does NumPy calls (tensors.NUMPY_ARRAY_FUNCS). A branch on its
  values is data-dependent (GB0170), as in diffusers' HiDream `moe_infer`
  (`tokens_per_expert = ....bincount().cpu().numpy().cumsum(0)`, `if start_idx == end_idx`).
- A parameter annotated as a sequence of numbers (`sizes: list[tuple[int, int]]`) that every
  call passes a tensor is a tensor to Dynamo, as `step: int` already was (call_sites
  `_numeric_annotation`): HiDream's `unpatchify(x, img_sizes, ...)` slices by `pH * pW` of a row
  of the tensor `patchify` returns (GB0124).
- `slice(s, s + 2)` built from a tensor reads the bound as `x[s:s + 2]` does (BRK258, GB0033 at
  the call): MONAI's `dense_patch_slices` builds its windows from a NumPy grid. Not where a
  conditional expression's test shows the bound is a number (`slice(-keep, None) if
  isinstance(keep, int) else keep`, transformers' `logits_to_keep: int | torch.Tensor`), nor on
  the right of `isinstance(keep, int) and keep > 0` or in the body of an `if` with that test.
- NumPy's data-dependent shapes, `np.where(cond)`, `np.nonzero`, `np.flatnonzero`, `np.argwhere`,
  `np.unique`, are `torch.nonzero`/`torch.unique` to Dynamo (BRK105, GB0036), even on constants."""

from __future__ import annotations

import pytest

from tests.conftest import assert_script_confirms, requires_torch, rule_lines, static_findings

ARRAYS = '''
    import torch


    def route(x, idx):
        counts = idx.bincount().cpu().numpy().cumsum(0)
        out = torch.zeros_like(x)
        for i, end in enumerate(counts):
            start = 0 if i == 0 else counts[i - 1]
            if start == end:
                continue
            out[start:end] = x[start:end] * 2
        return out


    def rescale(x):
        arr = x.detach().cpu().numpy()
        if arr.max() > 1:
            return x / 2
        return x


    def main():
        route_c = torch.compile(route, backend="eager")
        rescale_c = torch.compile(rescale, backend="eager")
        x = torch.randn(8, 4)
        route_c(x, torch.tensor([0, 0, 1, 2, 2, 2, 3, 3]))
        rescale_c(x[0])


    if __name__ == "__main__":
        main()
    '''

SIZES = '''
    import torch
    from torch import nn


    class Patches(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(4, 4)

        def patchify(self, x):
            sizes = torch.tensor([2, 2], dtype=torch.int64).reshape(-1)
            sizes = sizes.unsqueeze(0).repeat(x.shape[0], 1)
            return self.proj(x), sizes

        def unpatchify(self, x: torch.Tensor, sizes: list[tuple[int, int]]) -> list[torch.Tensor]:
            out = []
            for i, size in enumerate(sizes):
                h, w = size
                out.append(x[i, : h * w])
            return out

        def forward(self, x):
            h, sizes = self.patchify(x)
            return self.unpatchify(h, sizes)


    def main():
        model = torch.compile(Patches(), backend="eager")
        model(torch.randn(2, 8, 4))


    if __name__ == "__main__":
        main()
    '''

WINDOWS = '''
    import numpy as np
    import torch


    def grid_windows(x, starts):
        grid = np.asarray(starts)
        return [x[slice(s, s + 2)] for s in grid]


    def range_windows(x):
        return [x[slice(i, i + 2)] for i in range(0, 6, 2)]


    def main():
        torch.compile(grid_windows, backend="eager")(torch.randn(8), [0, 2, 4])
        torch.compile(range_windows, backend="eager")(torch.randn(8))


    if __name__ == "__main__":
        main()
    '''

NARROWED = '''
    import torch
    from torch import nn


    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.score = nn.Linear(4, 2)

        def forward(self, h: torch.Tensor, keep: int | torch.Tensor = 0):
            idx = slice(-keep, None) if isinstance(keep, int) else keep
            last = h[:, -keep:] if isinstance(keep, int) else h[:, keep]
            return self.score(h[:, idx, :]), last


    def main():
        torch.compile(Head(), backend="eager")(torch.randn(2, 5, 4))


    if __name__ == "__main__":
        main()
    '''

NUMPY_SHAPES = '''
    import numpy as np
    import torch


    def positives(x):
        arr = x.cpu().numpy()
        idx = np.where(arr > 0)[0]
        flat = np.flatnonzero(arr)
        kept = np.where(arr > 0, arr, 0)
        return torch.from_numpy(idx), torch.from_numpy(flat), torch.from_numpy(kept)


    def classes(x):
        labels = np.unique(np.array([3, 1, 3, 2]))
        return x[: len(labels)]


    def main():
        x = torch.tensor([0.0, 1.0, -1.0, 2.0])
        torch.compile(positives, backend="eager")(x)
        torch.compile(classes, backend="eager")(x)


    if __name__ == "__main__":
        main()
    '''

SHORT_CIRCUIT = NARROWED.replace(
    """            idx = slice(-keep, None) if isinstance(keep, int) else keep
            last = h[:, -keep:] if isinstance(keep, int) else h[:, keep]
            return self.score(h[:, idx, :]), last""",
    """            if isinstance(keep, int) and keep > 0:
                h = h[:, -keep:]
            whole = not isinstance(keep, torch.Tensor) or keep.numel() == 1
            return self.score(h), whole""").replace("(torch.randn(2, 5, 4))", "(torch.randn(2, 5, 4), 2)")

# A sequence-of-numbers parameter that the calls pass Python values stays a Python value
PLAIN_SIZES = SIZES.replace("h, sizes = self.patchify(x)", "h, _ = self.patchify(x)\n            sizes = [(2, 2), (2, 2)]")


def test_branch_on_an_array_from_numpy_is_predicted(tmp_path):
    assert {("BRK105", 6), ("BRK101", 10), ("BRK101", 18)} <= rule_lines(static_findings(tmp_path, ARRAYS))


def test_a_number_sequence_annotation_given_a_tensor_is_a_tensor(tmp_path):
    assert ("BRK258", 20) in rule_lines(static_findings(tmp_path, SIZES))


def test_a_number_sequence_annotation_given_numbers_stays_numbers(tmp_path):
    assert not {rule for rule, line in rule_lines(static_findings(tmp_path, PLAIN_SIZES)) if line == 20}


def test_a_slice_object_from_a_tensor_is_predicted(tmp_path):
    found = rule_lines(static_findings(tmp_path, WINDOWS))
    assert ("BRK258", 8) in found and not {line for _, line in found if line == 12}


def test_numpy_data_dependent_shapes_are_predicted(tmp_path):
    found = rule_lines(static_findings(tmp_path, NUMPY_SHAPES))
    assert {("BRK105", 8), ("BRK105", 9), ("BRK105", 15)} <= found and not {line for _, line in found if line == 10}


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_the_numpy_shapes(tmp_path):
    assert_script_confirms(tmp_path, NUMPY_SHAPES, {("BRK105", 8), ("BRK105", 9), ("BRK105", 15)})


def test_a_name_the_left_operand_shows_is_a_number_is_not_flagged(tmp_path):
    assert not {rule for rule, line in rule_lines(static_findings(tmp_path, SHORT_CIRCUIT)) if line in (12, 13)}


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_agrees_the_short_circuit_operand_is_a_number(tmp_path):
    assert_script_confirms(tmp_path, SHORT_CIRCUIT, set())


def test_a_bound_a_conditional_expression_shows_is_a_number_is_not_flagged(tmp_path):
    assert not {rule for rule, line in rule_lines(static_findings(tmp_path, NARROWED)) if line in (12, 13)}


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_agrees_the_narrowed_bound_is_a_number(tmp_path):
    assert_script_confirms(tmp_path, NARROWED, set())


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_the_slice_object(tmp_path):
    assert_script_confirms(tmp_path, WINDOWS, {("BRK258", 8)})


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_the_array_branches(tmp_path):
    assert_script_confirms(tmp_path, ARRAYS, {("BRK105", 6), ("BRK101", 10), ("BRK101", 18)})


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_the_tensor_slice_bound(tmp_path):
    assert_script_confirms(tmp_path, SIZES, {("BRK258", 20)})


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_agrees_numbers_stay_numbers(tmp_path):
    assert_script_confirms(tmp_path, PLAIN_SIZES, set())
