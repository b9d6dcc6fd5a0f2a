import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 2)
        self.last_loss = 0.0

    def forward(self, x, y):
        loss = torch.nn.functional.cross_entropy(self.lin(x), y)
        self.last_loss = float(loss)
        return loss


torch.compile(Model())(torch.randn(3, 4), torch.tensor([0, 1, 1]))
