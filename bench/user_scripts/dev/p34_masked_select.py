import torch

class Loss(torch.nn.Module):
    def forward(self, pred, target, valid):
        diff = (pred - target)[valid]
        return diff.abs().mean()

loss = torch.compile(Loss())
loss(torch.rand(6), torch.rand(6), torch.tensor([1, 0, 1, 1, 0, 1], dtype=torch.bool))
