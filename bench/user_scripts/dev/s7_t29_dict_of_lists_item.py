import torch


class Tracker(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.history = {"loss": []}

    def forward(self, x):
        loss = x.pow(2).mean()
        self.history["loss"].append(loss.item())
        return loss


torch.compile(Tracker())(torch.randn(5))
