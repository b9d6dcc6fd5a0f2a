import torch


class Lazy(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = None

    def forward(self, x):
        w = torch.nn.Parameter(torch.ones(x.shape[-1]))
        return x * w


torch.compile(Lazy())(torch.randn(2, 5))
