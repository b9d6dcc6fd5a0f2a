"""Objects and functions a compiled region reaches through how a user's script binds them, driven
through `breakscan run` (static pass and Dynamo on the same lines, 2.13 and 2.15):
- a function passed to a class's `__init__` and stored to be called later (`Net(hinge)`, then
  `self.loss_fn = loss_fn` and `self.loss_fn(h, y)` in `forward`): Dynamo inlines it with the
  arguments of that call, so a branch on them breaks (BRK101, GB0170);
- an object stored in `self` by a method other than `__init__` (`self.meter = Meter()` in
  `reset()`, `__init__` leaving `None` there): its methods are traced from `self.meter.update(x)`;
- an object a module-level factory returns (`m = make_meter()`, where every `return` of
  `make_meter` builds a `Meter`): a local instance of that class, as `m = Meter()` is.
A factory whose returns build different classes gives no instance (nothing flagged).
An object passed by name to a class's constructor (`meter = EMAMeter()`, then
`Trainer(model, meter)` storing `self.meter = meter`) is what `self.meter` holds, and a tensor
stored in `self.value` reads back as one further down the same method (`if self.value > 5`),
whatever `__init__` stored there first (`None`). A method an object's class inherits
(`m.update(loss)` for `m` in `self.meters`, `update` defined in `BaseMeter`) runs with `self` of
that class, so its `self.check(v)` is the subclass's override; a project object named like a
logger (`LOGGER = Logger()`) is no logging call (no BRK202): its `log` is traced like any method.
An element of such an attribute (`self.meters["train"].update(loss)`) is one of those objects too.
A property of a local instance (`meter.avg`) reads what its getter returns (a tensor: BRK101),
and so does one of an object kept on `self` or of an element of a container attribute
(`self.tracker.mean`, `self.by_split["train"].mean`). A method called on a loop variable over a
`self` attribute (`m.update(loss)` for `m` in `self.meters`) that breaks skips the frame.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import (
    assert_dynamo_confirms,
    break_statuses,
    requires_torch,
    rule_lines,
    run_findings,
    static_findings,
    write_files,
)

SCRIPT = '''\
import torch
import torch.nn as nn


class Meter:
    def __init__(self):
        self.total = torch.zeros(())

    def update(self, v):
        self.total += v.detach()
        if v > 10:
            self.total.zero_()


def make_meter():
    return Meter()


def hinge(pred, target):
    margin = 1 - pred * target
    if margin.max() > 0:
        return margin.clamp(min=0).mean()
    return margin.sum() * 0


class Net(nn.Module):
    def __init__(self, loss_fn):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.loss_fn = loss_fn

    def forward(self, x, y):
        return self.loss_fn(self.lin(x), y)


class Trainer:
    def __init__(self, model):
        self.model = model
        self.meter = None

    def reset(self):
        self.meter = Meter()

    @torch.compile(backend="eager")
    def step(self, x, y):
        loss = nn.functional.l1_loss(self.model(x, y), torch.zeros(()))
        self.meter.update(loss)
        return loss


@torch.compile(backend="eager")
def evaluate(model, x, y):
    m = make_meter()
    loss = nn.functional.l1_loss(model(x, y), torch.zeros(()))
    m.update(loss)
    return loss


def main():
    model = Net(hinge)
    trainer = Trainer(model)
    trainer.reset()
    for _ in range(2):
        trainer.step(torch.randn(2, 4), torch.randn(2, 4))
        evaluate(model, torch.randn(2, 4), torch.randn(2, 4))


if __name__ == "__main__":
    main()
'''
# `if v > 10` in Meter.update (through self.meter and through make_meter), `if margin.max() > 0`
# in hinge (through self.loss_fn)
BREAKS = [("BRK101", "train.py", 11), ("BRK101", "train.py", 21)]


def _flagged(tmp_path, source: str) -> set[tuple[str, int]]:
    return rule_lines(static_findings(tmp_path, {"train.py": source}))


def test_bound_functions_and_objects_are_traced(tmp_path):
    found = _flagged(tmp_path, SCRIPT)
    assert {("BRK101", 11), ("BRK101", 21)} <= found, found


def test_each_binding_alone_reaches_its_callee(tmp_path):
    only_reset = SCRIPT.replace("    m.update(loss)\n", "")
    assert ("BRK101", 11) in _flagged(tmp_path / "reset", only_reset)
    only_factory = SCRIPT.replace("        self.meter.update(loss)\n", "")
    assert ("BRK101", 11) in _flagged(tmp_path / "factory", only_factory)


def test_a_factory_of_two_classes_gives_no_instance(tmp_path):
    source = SCRIPT.replace("def make_meter():\n    return Meter()",
                            "class Other:\n    def update(self, v):\n        return v\n\n\n"
                            "def make_meter(fast=False):\n    if fast:\n        return Other()\n    return Meter()")
    source = source.replace("        self.meter.update(loss)\n", "")
    assert ("BRK101", 11) not in _flagged(tmp_path, source)


def test_a_function_not_passed_to_the_class_is_not_reached(tmp_path):
    source = SCRIPT.replace("model = Net(hinge)", "model = Net(nn.functional.mse_loss)")
    assert ("BRK101", 21) not in _flagged(tmp_path, source)


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_breaks_through_bound_objects(tmp_path):
    write_files(tmp_path, {"train.py": SCRIPT})
    assert_dynamo_confirms(break_statuses(run_findings(tmp_path, "train.py")), BREAKS)


# The same objects across a package: `train.py` passes a meter it built to a compiled step of
# `proj/engine.py`, and `engine.py` builds another through a factory imported from
# `proj/meters.py` (links.link_instances).
PACKAGE = {
    "proj/__init__.py": "",
    "proj/meters.py": '''\
import torch


class RunningMean:
    def __init__(self):
        self.sum = torch.zeros(())

    def update(self, value):
        if torch.isnan(value):
            return
        self.sum += value.detach()


def build_meter():
    return RunningMean()
''',
    "proj/engine.py": '''\
import torch
import torch.nn.functional as F

from .meters import build_meter


@torch.compile(backend="eager")
def train_step(model, x, y, meter):
    loss = F.cross_entropy(model(x), y)
    meter.update(loss)
    return loss


@torch.compile(backend="eager")
def eval_step(model, x, y):
    meter = build_meter()
    loss = F.cross_entropy(model(x), y)
    meter.update(loss)
    return loss
''',
    "train.py": '''\
import torch
import torch.nn as nn

from proj.engine import eval_step, train_step
from proj.meters import RunningMean


def main():
    model = nn.Linear(8, 3)
    meter = RunningMean()
    for _ in range(2):
        x, y = torch.randn(4, 8), torch.randint(0, 3, (4,))
        train_step(model, x, y, meter)
        eval_step(model, x, y)


if __name__ == "__main__":
    main()
''',
}
PACKAGE_BREAKS = [("BRK101", "meters.py", 9)]


def _package_flags(tmp_path, files: dict[str, str]) -> set[tuple[str, str, int]]:
    return {(f.rule_id, Path(f.path).name, f.line) for f in static_findings(tmp_path, files)}


def test_objects_cross_modules_of_a_package(tmp_path):
    assert ("BRK101", "meters.py", 9) in _package_flags(tmp_path, PACKAGE)


def test_each_cross_module_link_alone(tmp_path):
    passed_only = {**PACKAGE, "proj/engine.py": PACKAGE["proj/engine.py"].replace(
        "    meter = build_meter()\n    loss = F.cross_entropy(model(x), y)\n    meter.update(loss)\n",
        "    loss = F.cross_entropy(model(x), y)\n")}
    assert ("BRK101", "meters.py", 9) in _package_flags(tmp_path / "passed", passed_only)
    factory_only = {**PACKAGE, "proj/engine.py": PACKAGE["proj/engine.py"].replace(
        "    meter.update(loss)\n    return loss\n\n\n@", "    return loss\n\n\n@")}
    assert ("BRK101", "meters.py", 9) in _package_flags(tmp_path / "factory", factory_only)


def test_a_call_passing_something_else_unlinks_the_parameter(tmp_path):
    files = {**PACKAGE, "proj/engine.py": PACKAGE["proj/engine.py"].replace(
        "    meter = build_meter()\n    loss = F.cross_entropy(model(x), y)\n    meter.update(loss)\n",
        "    loss = F.cross_entropy(model(x), y)\n"),
        "train.py": PACKAGE["train.py"].replace("        eval_step(model, x, y)\n",
                                                "        train_step(model, x, y, object())\n")}
    assert ("BRK101", "meters.py", 9) not in _package_flags(tmp_path, files)


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_breaks_through_objects_across_modules(tmp_path):
    write_files(tmp_path, PACKAGE)
    assert_dynamo_confirms(break_statuses(run_findings(tmp_path, "train.py")), PACKAGE_BREAKS)


CONSTRUCTOR = '''\
import torch
import torch.nn as nn


class EMAMeter:
    def __init__(self, decay=0.9):
        self.decay = decay
        self.value = None

    def update(self, loss):
        if self.value is None:
            self.value = loss.detach()
        else:
            self.value = self.decay * self.value + (1 - self.decay) * loss.detach()
        if self.value > 5:
            self.value = self.value.clamp(max=5.0)


class Trainer:
    def __init__(self, model, meter):
        self.model = model
        self.meter = meter

    @torch.compile(backend="eager")
    def step(self, x, y):
        loss = nn.functional.mse_loss(self.model(x), y)
        self.meter.update(loss)
        return loss


def main():
    model = nn.Linear(4, 4)
    meter = EMAMeter()
    trainer = Trainer(model, meter)
    for _ in range(3):
        trainer.step(torch.randn(2, 4), torch.randn(2, 4))


if __name__ == "__main__":
    main()
'''


def test_an_object_passed_to_a_constructor_is_what_the_attribute_holds(tmp_path):
    assert ("BRK101", 15) in _flagged(tmp_path, CONSTRUCTOR)


def test_a_self_attribute_is_a_tensor_only_where_one_was_stored(tmp_path):
    """`self.value` stays what the class says where this method stored no tensor there."""
    source = CONSTRUCTOR.replace("        if self.value is None:\n            self.value = loss.detach()\n"
                                 "        else:\n            self.value = self.decay * self.value + (1 - self.decay)"
                                 " * loss.detach()\n", "        self.count = loss.detach()\n")
    assert ("BRK101", 12) not in _flagged(tmp_path, source), source


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_a_branch_on_an_object_passed_to_a_constructor(tmp_path):
    write_files(tmp_path, {"train.py": CONSTRUCTOR})
    assert_dynamo_confirms(break_statuses(run_findings(tmp_path, "train.py")), [("BRK101", "train.py", 15)])


SUBCLASSES = '''\
import torch
import torch.nn as nn


class BaseMeter:
    def __init__(self):
        self.total = torch.zeros(())

    def update(self, v):
        self.total = self.total + v.detach()
        self.check(v)

    def check(self, v):
        pass


class LossMeter(BaseMeter):
    def check(self, v):
        if v.isnan():
            self.total.zero_()


class Logger:
    def __init__(self):
        self.rows = []

    def log(self, name, value):
        self.rows.append((name, value.detach()))


LOGGER = Logger()


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.meters = [LossMeter(), LossMeter()]

    def forward(self, x):
        out = self.fc(x)
        loss = out.pow(2).mean()
        for m in self.meters:
            m.update(loss)
        LOGGER.log("loss", loss)
        return out


def main():
    model = torch.compile(Model(), backend="eager")
    for _ in range(2):
        model(torch.randn(2, 4))


if __name__ == "__main__":
    main()
'''


def test_an_inherited_method_calls_the_subclass_override(tmp_path):
    found = _flagged(tmp_path, SUBCLASSES)
    assert ("BRK101", 19) in found, found


def test_a_project_object_named_like_a_logger_is_no_logging_call(tmp_path):
    assert ("BRK202", 45) not in _flagged(tmp_path, SUBCLASSES)
    with_logging = SUBCLASSES.replace("LOGGER = Logger()", "import logging\nLOGGER = logging.getLogger(__name__)")
    # no break in the loop above it, which would skip the frame (the call then runs eagerly)
    with_logging = with_logging.replace("        if v.isnan():\n            self.total.zero_()",
                                        "        v = v + 0\n        self.total.zero_()")
    assert ("BRK202", 46) in _flagged(tmp_path / "logging", with_logging)


def test_a_method_of_an_element_of_a_self_attribute_is_traced(tmp_path):
    """`self.named["train"].update(loss)`: an element of the dict `__init__` puts in
    `self.named` (as `m` of `for m in self.meters`)."""
    source = SUBCLASSES.replace('        self.meters = [LossMeter(), LossMeter()]',
                                '        self.meters = {"train": LossMeter()}')
    source = source.replace('        for m in self.meters:\n            m.update(loss)',
                            '        self.meters["train"].update(loss)\n')
    assert ("BRK101", 19) in _flagged(tmp_path, source), source


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_a_branch_in_a_subclass_override(tmp_path):
    write_files(tmp_path, {"train.py": SUBCLASSES})
    assert_dynamo_confirms(break_statuses(run_findings(tmp_path, "train.py")), [("BRK101", "train.py", 19)])


PROPERTY = '''\
import torch


class AverageMeter:
    def __init__(self):
        self.total = torch.zeros(())
        self.count = 0

    def update(self, v):
        self.total = self.total + v.detach()
        self.count = self.count + 1

    @property
    def avg(self):
        return self.total / max(self.count, 1)

    @property
    def name(self):
        return "loss"


@torch.compile(backend="eager")
def step(x):
    meter = AverageMeter()
    loss = (x * 2).sum()
    meter.update(loss)
    if meter.name == "loss":
        loss = loss + 1
    if meter.avg > 100:
        loss = loss * 0
    return loss


if __name__ == "__main__":
    for _ in range(2):
        step(torch.randn(4))
'''


def test_a_property_of_a_local_instance_reads_its_getter(tmp_path):
    found = _flagged(tmp_path, PROPERTY)
    assert ("BRK101", 29) in found and ("BRK101", 27) not in found, found


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_a_branch_on_a_property_of_a_local_instance(tmp_path):
    write_files(tmp_path, {"train.py": PROPERTY})
    assert_dynamo_confirms(break_statuses(run_findings(tmp_path, "train.py")), [("BRK101", "train.py", 29)])


# BRK409 through an inherited method: `update` is BaseMeter's, the break is in LossMeter's
# `validate` override it calls (the cross-file pass follows `self` of the object's class).
INHERITED_BUILT = '''\
import torch


class BaseMeter:
    def __init__(self):
        self.total = torch.zeros(())

    def update(self, value):
        self.total = self.total + value.detach()
        self.validate(value)

    def validate(self, value):
        pass


class LossMeter(BaseMeter):
    def validate(self, value):
        print("loss", value)


@torch.compile(backend="eager")
def evaluate(x):
    meter = LossMeter()
    loss = (x * 2).sum()
    meter.update(loss)
    return loss


if __name__ == "__main__":
    for _ in range(2):
        evaluate(torch.randn(4))
'''
INHERITED_BREAKS = [("BRK201", "train.py", 18), ("BRK409", "train.py", 25)]


def test_a_built_object_breaking_in_an_override_of_an_inherited_method(tmp_path):
    found = _flagged(tmp_path, INHERITED_BUILT)
    assert {("BRK201", 18), ("BRK409", 25)} <= found, found


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_brk409_through_an_inherited_method(tmp_path):
    write_files(tmp_path, {"train.py": INHERITED_BUILT})
    assert_dynamo_confirms(break_statuses(run_findings(tmp_path, "train.py")), INHERITED_BREAKS)


# A property of an object `__init__` keeps on `self` (`self.tracker.mean`) or of an element of a
# container attribute (`self.by_split["train"].mean`): the getter runs, Dynamo inlines it.
PROPERTY_ON_SELF = '''\
import torch
import torch.nn as nn


class RunningLoss:
    def __init__(self):
        self.total = torch.zeros(())
        self.count = torch.zeros(())

    def update(self, v):
        self.total = self.total + v.detach()
        self.count = self.count + 1

    @property
    def mean(self):
        return self.total / self.count.clamp(min=1)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.tracker = RunningLoss()
        self.by_split = {"train": RunningLoss(), "val": RunningLoss()}

    def forward(self, x):
        out = self.fc(x)
        loss = out.pow(2).mean()
        self.tracker.update(loss)
        self.by_split["train"].update(loss)
        if self.tracker.mean > 100:
            out = out * 0
        if self.by_split["train"].mean > 50:
            out = out * 0.5
        return out


def main():
    model = torch.compile(Model(), backend="eager")
    for _ in range(2):
        model(torch.randn(2, 4))


if __name__ == "__main__":
    main()
'''
PROPERTY_ON_SELF_BREAKS = [("BRK101", "train.py", 31), ("BRK101", "train.py", 33)]


def test_a_property_of_an_object_kept_on_self_reads_its_getter(tmp_path):
    found = _flagged(tmp_path, PROPERTY_ON_SELF)
    assert {("BRK101", 31), ("BRK101", 33)} <= found, found


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_a_branch_on_a_property_of_an_object_kept_on_self(tmp_path):
    write_files(tmp_path, {"train.py": PROPERTY_ON_SELF})
    assert_dynamo_confirms(break_statuses(run_findings(tmp_path, "train.py")), PROPERTY_ON_SELF_BREAKS)


# A method of a loop variable over a `self` attribute (`m.update(loss)` for `m` in `self.meters`)
# that breaks inside the loop skips the frame: the branch after the loop runs eagerly.
METHOD_OF_LOOP_VARIABLE = '''\
import torch
import torch.nn as nn


class Meter:
    def __init__(self):
        self.total = torch.zeros(())

    def update(self, v):
        self.total = self.total + v.detach()
        if v.isnan():
            raise RuntimeError("nan loss")

    @property
    def avg(self):
        return self.total / 2


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.meters = [Meter(), Meter()]

    def forward(self, x):
        out = self.fc(x)
        loss = out.pow(2).mean()
        for m in self.meters:
            m.update(loss)
        if self.meters[0].avg > 100:
            out = out * 0
        return out


def main():
    model = torch.compile(Model(), backend="eager")
    for _ in range(2):
        model(torch.randn(2, 4))


if __name__ == "__main__":
    main()
'''


def test_a_break_in_a_method_called_on_a_loop_variable_skips_the_frame(tmp_path):
    found = _flagged(tmp_path, METHOD_OF_LOOP_VARIABLE)
    assert ("BRK101", 11) in found and ("BRK101", 30) not in found, found


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_skips_the_frame_after_a_break_in_a_method_of_a_loop_variable(tmp_path):
    write_files(tmp_path, {"train.py": METHOD_OF_LOOP_VARIABLE})
    assert_dynamo_confirms(break_statuses(run_findings(tmp_path, "train.py")), [("BRK101", "train.py", 11)])
