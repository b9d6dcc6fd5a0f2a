"""BRK271: a method of a NumPy random generator (`np.random.default_rng`, `RandomState`) called in
a region. Dynamo does not trace the generator object: every method breaks (GB0156). The generator
is known from a module-level binding, a class-level attribute (MONAI's `Randomizable.R`), an
`__init__` store or a local bound once; a parameter of the same name is not it. Checked with
`breakscan run` on 2.13 and 2.15."""

from __future__ import annotations

import pytest

from tests.conftest import assert_script_confirms, requires_torch, rule_lines, static_findings

SOURCE = '''
import numpy as np
import torch

rng = np.random.default_rng(0)


class Jitter(torch.nn.Module):
    R = np.random.RandomState()

    def __init__(self):
        super().__init__()
        self.gen = np.random.default_rng(1)

    def forward(self, x):
        scale = self.R.uniform(0.9, 1.1)
        shift = self.gen.normal()
        return x * scale + shift


@torch.compile(backend="eager")
def noisy(x):
    return x + rng.normal()


@torch.compile(backend="eager")
def seeded(x, rng=None):
    return x + (rng.uniform() if rng is not None else 0.0)


def main():
    x = torch.randn(4)
    torch.compile(Jitter(), backend="eager")(x)
    noisy(x)
    seeded(x)


if __name__ == "__main__":
    main()
'''

EXPECTED = {("BRK271", 16), ("BRK271", 17), ("BRK271", 23)}


def test_generator_methods_are_flagged_and_a_parameter_is_not(tmp_path):
    found = {hit for hit in rule_lines(static_findings(tmp_path, {"train.py": SOURCE})) if hit[0] == "BRK271"}
    assert found == EXPECTED


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms(tmp_path):
    assert_script_confirms(tmp_path, SOURCE, EXPECTED)
