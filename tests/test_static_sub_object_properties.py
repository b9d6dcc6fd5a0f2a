"""A property of an object an attribute holds, read in a compile region (`self.scheduler.
init_noise_sigma`, `self.scheduler` a project class built in `__init__`): Dynamo runs the getter
there, so its body joins the region and its breaks are predicted. Before, only the getter's
return kind was read. From a new diffusers dev case (ConsistencyDecoderVAE reads its
scheduler's `init_noise_sigma`, whose 0-dim index broke unseen). Checked with `breakscan run`
against Dynamo on 2.13 and 2.15."""

from __future__ import annotations

import pytest

from tests.conftest import assert_script_confirms, requires_torch, rule_lines, static_findings

SOURCE = '''
    import torch
    from torch import nn


    class Scheduler:
        def __init__(self, steps=1024):
            self.sqrt_one_minus = torch.sqrt(torch.linspace(0.01, 0.99, steps))
            self.timesteps = torch.tensor([1008, 512], dtype=torch.long)

        @property
        def init_noise_sigma(self):
            return self.sqrt_one_minus[self.timesteps[0]]

        @property
        def verbose_sigma(self):
            print("sigma read")
            return self.sqrt_one_minus[-1]

        @property
        def unused(self):
            return self.sqrt_one_minus.tolist()


    class Decoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.scheduler = Scheduler()
            self.proj = nn.Linear(4, 4)

        def forward(self, x):
            return self.proj(x) * self.scheduler.init_noise_sigma


    class Logged(Decoder):
        def forward(self, x):
            return self.proj(x) * self.scheduler.verbose_sigma


    if __name__ == "__main__":
        for cls in (Decoder, Logged):
            model = torch.compile(cls(), backend="eager")
            model(torch.ones(2, 4))
            model(torch.ones(2, 4))
    '''

EXPECTED = {("BRK260", 13), ("BRK201", 17)}


def test_a_property_of_an_attribute_object_joins_the_region(tmp_path):
    assert rule_lines(static_findings(tmp_path, {"train.py": SOURCE})) == EXPECTED


@pytest.mark.dynamic
@pytest.mark.versions
@requires_torch
def test_dynamo_agrees(tmp_path):
    assert_script_confirms(tmp_path, SOURCE, EXPECTED)
