import torch

class Metric(torch.nn.Module):
    def forward(self, pred, target):
        acc = (pred.argmax(-1) == target).float().mean()
        self.history = getattr(self, "history", [])
        self.history.append(acc.cpu().numpy())
        return acc

metric = torch.compile(Metric())
metric(torch.rand(4, 3), torch.tensor([0, 1, 2, 0]))
