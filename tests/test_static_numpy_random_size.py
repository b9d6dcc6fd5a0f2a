"""`numpy.random` draws in a compiled region (BRK206): Dynamo runs them through torch._numpy, and
only a scalar draw (no size) breaks, reading the number back (GB0033); a sized draw is traced,
`choice` breaks either way. An augmentation helper of the kind data pipelines write, checked
through the CLI against Dynamo on the installed torch."""

from __future__ import annotations

from tests.conftest import break_statuses, cli_findings, requires_torch, static_findings, write_files

AUGMENT = '''
    import numpy as np
    import torch


    @torch.compile
    def jitter(x):
        scale = np.random.uniform(0.9, 1.1)
        return x * scale


    @torch.compile
    def add_noise(x):
        noise = torch.from_numpy(np.random.normal(0.0, 0.1, x.shape[0])).float()
        keep = torch.from_numpy(np.random.rand(x.shape[0]) > 0.1)
        return torch.where(keep, x + noise, x)


    @torch.compile
    def pick(x):
        idx = np.random.choice(x.shape[0], 2)
        return x[torch.from_numpy(idx)]


    def breakscan_examples():
        yield jitter, (torch.ones(4),)
        yield add_noise, (torch.ones(4),)
        yield pick, (torch.ones(4),)
    '''


def test_scalar_draws_are_flagged_and_sized_ones_are_not(tmp_path):
    found = {(f.rule_id, f.line) for f in static_findings(tmp_path, {"augment.py": AUGMENT})}
    assert ("BRK206", 8) in found  # uniform(0.9, 1.1): no size
    assert ("BRK206", 21) in found  # choice: breaks sized or not
    assert not {f for f in found if f[0] == "BRK206" and 14 <= f[1] <= 15}, found


def test_size_through_keywords_and_star_args(tmp_path):
    code = '''
        import numpy as np
        import torch


        @torch.compile
        def f(x):
            a = np.random.random(size=None)
            b = np.random.randint(0, 5, size=3)
            c = np.random.randn(*x.shape)
            d = np.random.randint(0, 5)
            return x, a, b, c, d
        '''
    found = {(f.rule_id, f.line) for f in static_findings(tmp_path, code) if f.rule_id == "BRK206"}
    assert found == {("BRK206", 8), ("BRK206", 11)}


@requires_torch
def test_dynamo_breaks_on_the_scalar_draws_only(tmp_path):
    write_files(tmp_path, {"augment.py": AUGMENT})
    found = break_statuses(cli_findings(tmp_path, "check", "augment.py", "--show-refuted",
                                        cache=tmp_path / "cache"))
    assert ("BRK206", "augment.py", 8, "confirmed") in found
    assert ("BRK206", "augment.py", 21, "confirmed") in found
    assert not {f for f in found if 14 <= f[2] <= 15}, found  # traced: nothing predicted or observed
