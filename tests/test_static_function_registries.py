"""Function registries: a module-level dict of functions (`LOSSES = {"l1": l1, "huber": huber}`)
called by key, `LOSSES[name](pred, y)`, bound by key to an attribute (`self.loss_fn =
LOSSES[name]`) or to a module-level name (`criterion = LOSSES["huber"]`, here or in an importing
module), or filled by a decorator that stores the function and gives it back (`@register_loss(
"huber")`) or by an item assignment (`LOSSES["mse"] = checked_mse`). Dynamo reads the key as a
constant and inlines the function it picks, so a graph break there is the compiled caller's: the
static pass follows every function the registry holds into the compile region and takes their
parameters' kinds from these calls. Static pass and Dynamo on the same lines, through
`breakscan run`.
"""

from __future__ import annotations

import pytest

from tests.conftest import (
    assert_package_confirms,
    assert_script_confirms,
    break_statuses,
    requires_torch,
    rule_lines,
    run_findings,
    static_findings,
    static_located,
    write_files,
)

LOSSES = '''\
import torch
import torch.nn.functional as F
from torch import nn


def l1_loss(pred, target):
    return (pred - target).abs().mean()


def huber_loss(pred, target, delta=1.0):
    diff = (pred - target).abs()
    if diff.max() < delta:
        return 0.5 * (diff ** 2).mean()
    return F.smooth_l1_loss(pred, target, beta=delta)


LOSSES = {"l1": l1_loss, "huber": huber_loss, "mse": F.mse_loss}
config = {"loss": "huber", "lr": 0.1}
'''

ATTRIBUTE = LOSSES + '''

class Regressor(nn.Module):
    def __init__(self, loss="huber"):
        super().__init__()
        self.body = nn.Linear(8, 1)
        self.loss_fn = LOSSES[loss]

    def forward(self, x, y):
        return self.loss_fn(self.body(x).squeeze(-1), y)


model = torch.compile(Regressor(config["loss"]), backend="eager")
x, y = torch.randn(16, 8), torch.randn(16)
print(float(model(x, y)))
'''

BY_KEY = LOSSES + '''

@torch.compile(backend="eager")
def train_step(model, x, y):
    out = model(x).squeeze(-1)
    return LOSSES[config["loss"]](out, y)


net = nn.Linear(8, 1)
x, y = torch.randn(16, 8), torch.randn(16)
print(float(train_step(net, x, y)))
'''


def test_a_function_an_attribute_takes_from_a_registry_is_in_the_region(tmp_path):
    found = static_findings(tmp_path, {"train.py": ATTRIBUTE})
    assert ("BRK101", 12) in rule_lines(found), found
    hit = next(f for f in found if (f.rule_id, f.line) == ("BRK101", 12))
    assert hit.chain == ("Regressor.forward", "huber_loss"), hit.chain


def test_a_registry_called_by_key_is_in_the_region(tmp_path):
    assert ("BRK101", 12) in rule_lines(static_findings(tmp_path, {"train.py": BY_KEY}))


def test_a_dict_of_data_is_not_a_registry(tmp_path):
    # one value is not a function: the dict is a table of settings, its calls are not followed
    table = BY_KEY.replace('"mse": F.mse_loss}', '"mse": F.mse_loss, "weight": 0.5}')
    assert ("BRK101", 12) not in rule_lines(static_findings(tmp_path, {"train.py": table}))


def test_a_registry_nothing_compiled_calls_is_not_checked(tmp_path):
    # the registry is called only outside the compiled function
    eager = BY_KEY.replace('return LOSSES[config["loss"]](out, y)', "return (out - y).pow(2).mean()")
    eager += 'print(float(LOSSES["huber"](net(x).squeeze(-1), y)))\n'
    assert ("BRK101", 12) not in rule_lines(static_findings(tmp_path, {"train.py": eager}))


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_the_break_in_a_function_an_attribute_takes_from_a_registry(tmp_path):
    assert_script_confirms(tmp_path, ATTRIBUTE, [("BRK101", 12)])


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_the_break_in_a_registry_called_by_key(tmp_path):
    assert_script_confirms(tmp_path, BY_KEY, [("BRK101", 12)])


# The registry in one module of a package; the training module picks its loss by key at import.
PACKAGE = {
    "regpkg/__init__.py": "",
    "regpkg/losses.py": LOSSES.replace("from torch import nn\n", ""),
    "regpkg/train.py": '''\
import torch
from torch import nn

from .losses import LOSSES

criterion = LOSSES["huber"]


@torch.compile(backend="eager")
def train_step(model, x, y):
    return criterion(model(x).squeeze(-1), y)


net = nn.Linear(8, 1)
x, y = torch.randn(16, 8), torch.randn(16)
for _ in range(2):
    loss = train_step(net, x, y)
    loss.backward()
''',
}


def test_a_name_bound_to_an_imported_registrys_entry_is_followed(tmp_path):
    found = static_located(tmp_path, PACKAGE)
    assert ("BRK101", "losses.py", 11) in found, found


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_the_break_through_an_imported_registry(tmp_path):
    assert_package_confirms(tmp_path, PACKAGE, "regpkg.train", [("BRK101", "losses.py", 11)])


# A registry filled by a decorator in another module, and by an item assignment from a third;
# the compiled step is a def nested in `main()` (its calls give the callees' parameter kinds too).
DECORATED = {
    "decpkg/__init__.py": "",
    "decpkg/registry.py": '''\
LOSSES = {}


def register_loss(name):
    def deco(fn):
        print(f"registered {name}")
        LOSSES[name] = fn
        return fn
    return deco
''',
    "decpkg/losses.py": '''\
import torch

from .registry import LOSSES, register_loss


@register_loss("huber")
def huber(pred, target, delta=1.0):
    diff = (pred - target).abs()
    if diff.max() < delta:
        return 0.5 * (diff ** 2).mean()
    return torch.where(diff < delta, 0.5 * diff ** 2, delta * (diff - 0.5 * delta)).mean()


def checked_mse(pred, target):
    if torch.isnan(pred).any():
        raise ValueError("nan in predictions")
    return ((pred - target) ** 2).mean()


LOSSES["mse"] = checked_mse
''',
    "decpkg/train.py": '''\
import torch
from torch import nn

from . import losses  # noqa: F401  (fills the registry)
from .registry import LOSSES


def main(loss_name="huber"):
    net = nn.Linear(8, 8)

    @torch.compile(backend="eager")
    def step(x, y):
        return LOSSES[loss_name](net(x), y)

    x, y = torch.randn(4, 8), torch.randn(4, 8)
    for _ in range(2):
        loss = step(x, y)
        loss.backward()


main()
''',
}


def test_a_registry_filled_by_a_decorator_and_an_item_assignment_is_followed(tmp_path):
    found = static_located(tmp_path, DECORATED)
    assert ("BRK101", "losses.py", 9) in found, found  # huber, registered by the decorator
    assert ("BRK101", "losses.py", 15) in found, found  # checked_mse, assigned to an item
    # the registrar runs at import, not in the compiled step: its `print` is no finding
    assert not {hit for hit in found if hit[1] == "registry.py"}, found


def test_a_helper_a_nested_compiled_def_calls_takes_its_kinds_from_that_call(tmp_path):
    source = '''\
import torch
from torch import nn


def clipped(pred, target, limit=1.0):
    diff = (pred - target).abs()
    if diff.max() > limit:
        diff = diff.clamp(max=limit)
    return diff.mean()


def main():
    net = nn.Linear(8, 8)

    @torch.compile(backend="eager")
    def step(x, y):
        return clipped(net(x), y)

    print(float(step(torch.randn(4, 8), torch.randn(4, 8))))


main()
'''
    assert ("BRK101", 7) in rule_lines(static_findings(tmp_path, {"train.py": source}))


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_confirms_the_break_in_a_function_a_decorator_registered(tmp_path):
    write_files(tmp_path, DECORATED)
    found = break_statuses(run_findings(tmp_path, "decpkg.train", module=True))
    assert ("BRK101", "losses.py", 9, "confirmed") in found, found
    # checked_mse is not the key this run picks: its break stays a prediction, nothing is refuted
    assert ("BRK101", "losses.py", 15, "predicted") in found, found
    assert not {f for f in found if f[3] in ("refuted", "observed")}, found
