"""A method compiled onto an attribute (`self.step = torch.compile(self._step)`) and called as
`trainer.step(...)` by a script takes its parameters' kinds from those calls, and the script's
module-level statements are bound in order to work them out: a mask from a dict of boolean
tensors built there makes `y[train_mask]` boolean-mask indexing (BRK106, GB0036). Static pass and
Dynamo on the same lines, through `breakscan run`.
"""

from __future__ import annotations

import pytest

from tests.conftest import (
    assert_package_confirms,
    assert_script_confirms,
    requires_torch,
    rule_lines,
    static_findings,
    static_located,
)

SCRIPT = '''\
import torch
import torch.nn.functional as F
from torch import nn


class Trainer:
    def __init__(self, model):
        self.model = model
        self.history = []
        self.step = torch.compile(self._step, backend="eager")

    def _step(self, x, y, train_mask, n_chunks):
        out = self.model(x)
        loss = F.cross_entropy(out[train_mask], y[train_mask])
        for i in range(n_chunks):
            loss = loss + 0.0 * out[i].sum()
        return loss


model = nn.Linear(8, 3)
trainer = Trainer(model)
masks = {name: torch.zeros(32, dtype=torch.bool) for name in ("train", "val")}
masks["train"][:16] = True
x, y = torch.randn(32, 8), torch.randint(0, 3, (32,))
for epoch in range(2):
    loss = trainer.step(x, y, masks["train"], 4)
    trainer.history.append(float(loss))
'''


def test_a_mask_a_script_passes_to_a_compiled_method_attribute_is_flagged(tmp_path):
    found = rule_lines(static_findings(tmp_path, {"train.py": SCRIPT}))
    assert ("BRK106", 14) in found, found
    assert not {hit for hit in found if hit[1] in (15, 16)}, found  # n_chunks is the number 4


def test_an_instance_passed_on_keeps_the_convention(tmp_path):
    # `run(trainer)` may call `trainer.step` with anything: its calls are not all in sight
    escaped = SCRIPT.replace("for epoch in range(2):", "def run(t):\n    pass\n\n\nrun(trainer)\nfor epoch in range(2):")
    found = rule_lines(static_findings(tmp_path, {"train.py": escaped}))
    assert ("BRK106", 14) not in found, found


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_the_mask_passed_to_a_compiled_method_attribute(tmp_path):
    assert_script_confirms(tmp_path, SCRIPT, [("BRK106", 14)])


# The trainer compiles its own step; the script that builds it and passes the mask compiles
# nothing (its `trainer = Trainer(model)` is read from the module-level assignments).
PACKAGE = {
    "fitpkg/__init__.py": "",
    "fitpkg/trainer.py": '''\
import torch
import torch.nn.functional as F


class Trainer:
    def __init__(self, model):
        self.model = model
        self.step = torch.compile(self._step, backend="eager")

    def _step(self, x, y, keep):
        logits = self.model(x)
        return F.cross_entropy(logits[keep], y[keep])
''',
    "fitpkg/fit.py": '''\
import torch
from torch import nn

from .trainer import Trainer

model = nn.Linear(8, 3)
trainer = Trainer(model)
y = torch.randint(0, 3, (32,))
splits = {name: y != i for i, name in enumerate(("a", "b"))}
for epoch in range(2):
    loss = trainer.step(torch.randn(32, 8), y, splits["a"])
    loss.backward()
''',
}


def test_a_mask_passed_from_a_module_that_compiles_nothing_is_flagged(tmp_path):
    found = static_located(tmp_path, PACKAGE)
    assert ("BRK106", "trainer.py", 12) in found, found


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_the_mask_passed_from_another_module(tmp_path):
    assert_package_confirms(tmp_path, PACKAGE, "fitpkg.fit", [("BRK106", "trainer.py", 12)])


# The same script written as users often write it: the trainer is built inside `main()`
# (FunctionInfo.local_classes of a module that compiles nothing).
MAIN_FIT = '''\
import torch
from torch import nn

from .trainer import Trainer


def main():
    model = nn.Linear(8, 3)
    trainer = Trainer(model)
    y = torch.randint(0, 3, (32,))
    splits = {name: y != i for i, name in enumerate(("a", "b"))}
    for epoch in range(2):
        loss = trainer.step(torch.randn(32, 8), y, splits["a"])
        loss.backward()


if __name__ == "__main__":
    main()
'''


def test_a_mask_passed_from_a_main_function_is_flagged(tmp_path):
    files = {**PACKAGE, "fitpkg/fit.py": MAIN_FIT}
    found = static_located(tmp_path, files)
    assert ("BRK106", "trainer.py", 12) in found, found


def test_a_name_two_functions_bind_to_different_classes_keeps_the_convention(tmp_path):
    # `trainer` in `check()` is another class's instance: calls by that name are not all the
    # Trainer's, so the compiled step's parameters are not read from them
    clash = MAIN_FIT.replace("def main():", "class Probe:\n    def step(self, *args):\n        pass\n\n\n"
                             "def check():\n    trainer = Probe()\n    trainer.step(1, 2, 3)\n\n\ndef main():")
    files = {**PACKAGE, "fitpkg/fit.py": clash}
    found = static_located(tmp_path, files)
    assert ("BRK106", "trainer.py", 12) not in found, found


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_the_mask_passed_from_a_main_function(tmp_path):
    files = {**PACKAGE, "fitpkg/fit.py": MAIN_FIT}
    assert_package_confirms(tmp_path, files, "fitpkg.fit", [("BRK106", "trainer.py", 12)])
