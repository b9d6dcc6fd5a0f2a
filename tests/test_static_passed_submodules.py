"""Submodules an `__init__` stores from its parameters (`self.ops = nn.ModuleList(ops)`) are
the classes the project's calls build there (`Compose([RandomFlip(), RandomNoise(), Cutout()])`,
through a package's re-exports): `for op in self.ops: img = op(img)` runs their `forward`s. So
`torch.compile(Compose([...]))` reaches them with `--regions explicit`, and a break in one of them
inside that loop makes Dynamo skip `Compose.forward`'s frame, whose later lines then run eagerly
(the BRK101 after the loop is no break). Checked with `breakscan run` against Dynamo."""

from __future__ import annotations

import pytest

from tests.conftest import (
    assert_dynamo_confirms,
    break_statuses,
    requires_torch,
    run_findings,
    static_findings,
    static_located,
    write_files,
)

PACKAGE = {
    "augs/__init__.py": "from .ops import Compose, RandomFlip, RandomNoise, Cutout\n",
    "augs/ops.py": '''
        import random

        import numpy as np
        import torch
        from torch import nn

        from .util import clamp_box


        class RandomFlip(nn.Module):
            def __init__(self, p=0.5):
                super().__init__()
                self.p = p

            def forward(self, img):
                if random.random() < self.p:
                    img = img.flip(-1)
                return img


        class RandomNoise(nn.Module):
            def __init__(self, std=0.1):
                super().__init__()
                self.std = std

            def forward(self, img):
                scale = np.random.uniform(0, self.std)
                return img + torch.randn_like(img) * scale


        class Cutout(nn.Module):
            def __init__(self, size=4):
                super().__init__()
                self.size = size

            def forward(self, img):
                h, w = img.shape[-2:]
                cy = torch.randint(0, h, (1,))
                cx = torch.randint(0, w, (1,))
                y0, y1, x0, x1 = clamp_box(cy, cx, self.size, h, w)
                img = img.clone()
                img[..., y0:y1, x0:x1] = 0
                return img


        class Compose(nn.Module):
            def __init__(self, ops):
                super().__init__()
                self.ops = nn.ModuleList(ops)

            def forward(self, img):
                for op in self.ops:
                    img = op(img)
                stats = {"mean": img.mean(), "max": img.max()}
                if stats["max"] > 10:
                    img = img / stats["max"]
                return img
        ''',
    "augs/util.py": '''
        def clamp_box(cy, cx, size, h, w):
            y0 = max(int(cy) - size // 2, 0)
            x0 = max(int(cx) - size // 2, 0)
            return y0, min(y0 + size, h), x0, min(x0 + size, w)
        ''',
    "pipeline.py": '''
        import torch

        from augs import Compose, Cutout, RandomFlip, RandomNoise

        aug = torch.compile(Compose([RandomFlip(), RandomNoise(), Cutout()]))


        def main():
            for _ in range(2):
                aug(torch.rand(2, 3, 16, 16))


        if __name__ == "__main__":
            main()
        ''',
}
EXPECTED = {("BRK205", "ops.py", 17), ("BRK206", "ops.py", 28), ("BRK104", "util.py", 3), ("BRK104", "util.py", 4)}


@pytest.mark.parametrize("regions", ["explicit", "modules"])
def test_submodules_passed_to_init_are_followed(tmp_path, regions):
    found = static_located(tmp_path, PACKAGE, regions=regions)
    assert found == EXPECTED, found  # and no BRK101 at `if stats["max"] > 10` (ops.py:56): run eagerly


def test_without_the_construction_nothing_is_known(tmp_path):
    files = dict(PACKAGE)
    files["pipeline.py"] = PACKAGE["pipeline.py"].replace("Compose([RandomFlip(), RandomNoise(), Cutout()])",
                                                           "Compose(make_ops())")
    found = {(f.rule_id, f.line) for f in static_findings(tmp_path, files, regions="explicit")}
    assert found == {("BRK101", 56)}, found  # the loop's callees unknown: its frame is not known to be skipped


@pytest.mark.dynamic
@requires_torch
def test_dynamo_agrees_on_passed_submodules(tmp_path):
    write_files(tmp_path, PACKAGE)
    found = break_statuses(run_findings(tmp_path, "pipeline.py"))
    assert_dynamo_confirms(found, EXPECTED)
