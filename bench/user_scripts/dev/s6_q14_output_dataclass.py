from dataclasses import dataclass

import torch
from torch import nn


@dataclass
class Output:
    logits: torch.Tensor
    loss: torch.Tensor = None


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 3)

    def forward(self, x, labels=None):
        logits = self.lin(x)
        out = Output(logits)
        if labels is not None:
            out.loss = nn.functional.cross_entropy(logits, labels)
            if out.loss > 10:
                print("large loss", out.loss)
        return out


clf = torch.compile(Classifier())
clf(torch.randn(5, 4), torch.randint(0, 3, (5,)))
