"""A name bound to an instance of an `nn.Module` class (`model = Classifier().to("cpu")` at
module level, `net = Net()` in the region) is a module: calling it runs the class's `forward`,
which Dynamo inlines, so what it returns is a tensor (or tensors, unpacked), as for
`self.sub(x)`. An instance of a class that is not a module says nothing. Checked through the CLI
against Dynamo on a user's training package (relative imports, a module subclassing another)."""

from __future__ import annotations

from tests.conftest import break_statuses, cli_findings, requires_torch, static_findings, write_files

PACKAGE = {
    "shop/__init__.py": "",
    "shop/nets.py": '''
        import torch
        from torch import nn
        import torch.nn.functional as F


        class Backbone(nn.Module):
            def __init__(self, dim=8):
                super().__init__()
                self.lin = nn.Linear(dim, dim)

            def forward(self, x):
                return F.relu(self.lin(x))


        class Classifier(Backbone):
            def __init__(self, dim=8, classes=3):
                super().__init__(dim)
                self.out = nn.Linear(dim, classes)

            def forward(self, x, labels=None):
                logits = self.out(super().forward(x))
                if labels is None:
                    return logits
                return logits, F.cross_entropy(logits, labels)


        class Vocab:
            """Not a module: calling it gives Python ints."""

            def __call__(self, words):
                return [len(w) for w in words]
        ''',
    "shop/train.py": '''
        import torch

        from .nets import Backbone, Classifier, Vocab

        model = Classifier().to("cpu")
        vocab = Vocab()


        @torch.compile
        def train_step(x, labels):
            logits, loss = model(x, labels)
            loss.backward()
            return logits.detach()


        @torch.compile
        def predict(x):
            scores = model(x)
            if scores.max() > 0.5:
                return scores
            return -scores


        @torch.compile
        def encode(x, words):
            ids = vocab(words)
            if ids[0] > 2:
                return x + 1
            return x


        @torch.compile
        def probe(x):
            net = Backbone()
            h = net(x)
            return h.sum().item()


        def breakscan_examples():
            x, labels = torch.randn(4, 8), torch.tensor([0, 2, 1, 1])
            yield train_step, (x, labels)
            yield predict, (x,)
            yield encode, (x, ["abc", "de"])
            yield probe, (x,)
        ''',
}


def test_calling_a_module_instance_gives_tensors(tmp_path):
    found = {(f.rule_id, f.line) for f in static_findings(tmp_path, PACKAGE, regions="explicit")
             if f.path.endswith("train.py")}
    assert ("BRK217", 13) in found, found  # loss.backward(): loss unpacked from model(x, labels)
    assert ("BRK101", 20) in found, found  # scores.max() > 0.5
    assert ("BRK102", 37) in found, found  # h.sum().item(): net = Backbone() in the region
    assert not {f for f in found if 25 <= f[1] <= 30}, found  # vocab(words): not a module


@requires_torch
def test_dynamo_confirms_the_breaks_after_module_instance_calls(tmp_path):
    write_files(tmp_path, PACKAGE)
    found = break_statuses(cli_findings(tmp_path, "check", "shop", "--show-refuted", cache=tmp_path / "cache"))
    for rule, line in (("BRK217", 13), ("BRK101", 20), ("BRK102", 37)):
        assert (rule, "train.py", line, "confirmed") in found, found
    assert not {f for f in found if f[1] == "train.py" and f[3] in ("refuted", "observed")}, found
