"""Two ways a tensor reaches code that reads as Python values, both measured with `breakscan run`
on 2.13 and 2.15:

- `t.numpy()` inside a compiled function is no copy out of the graph: Dynamo traces the array as
  a tensor (torch._numpy), as it does NumPy calls (tensors.NUMPY_ARRAY_FUNCS). A branch on its
  values is data-dependent (GB0170), as in diffusers' HiDream `moe_infer`
  (`tokens_per_expert = ....bincount().cpu().numpy().cumsum(0)`, `if start_idx == end_idx`).
- A parameter annotated as a sequence of numbers (`sizes: list[tuple[int, int]]`) that every
  call passes a tensor is a tensor to Dynamo, as `step: int` already was (call_sites
  `_numeric_annotation`): HiDream's `unpatchify(x, img_sizes, ...)` slices by `pH * pW` of a row
  of the tensor `patchify` returns (GB0124)."""

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

# A sequence-of-numbers parameter that the calls pass Python values stays a Python value
PLAIN_SIZES = SIZES.replace("h, sizes = self.patchify(x)", "h, _ = self.patchify(x)\n            sizes = [(2, 2), (2, 2)]")


def test_branch_on_an_array_from_numpy_is_predicted(tmp_path):
    assert {("BRK105", 6), ("BRK101", 10), ("BRK101", 18)} <= rule_lines(static_findings(tmp_path, ARRAYS))


def test_a_number_sequence_annotation_given_a_tensor_is_a_tensor(tmp_path):
    assert ("BRK258", 20) in rule_lines(static_findings(tmp_path, SIZES))


def test_a_number_sequence_annotation_given_numbers_stays_numbers(tmp_path):
    assert not {rule for rule, line in rule_lines(static_findings(tmp_path, PLAIN_SIZES)) if line == 20}


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
