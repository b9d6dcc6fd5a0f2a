import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer0 = nn.Linear(4, 4)
        self.layer1 = nn.Linear(4, 4)
        self.heads = nn.ModuleDict({"a": nn.Linear(4, 2), "b": nn.Linear(4, 3)})

    def forward(self, x, name="a"):
        for i in range(2):
            x = getattr(self, f"layer{i}")(x)
        x = x.view(-1, x.size(-1))
        losses = [x.mean(), x.std()]
        return self.heads[name](x), sum(losses) / len(losses)


net = torch.compile(Net())
net(torch.randn(3, 4))
