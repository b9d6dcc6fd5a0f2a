import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(4, 4)
        self.b = torch.nn.Linear(4, 4)

    def forward(self, x):
        for m in self.modules():
            if isinstance(m, torch.nn.Linear):
                x = m(x)
        return x


torch.compile(Net())(torch.randn(2, 4))
