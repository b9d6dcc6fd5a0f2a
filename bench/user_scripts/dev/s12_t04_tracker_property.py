import torch
import torch.nn as nn


class RunningLoss:
    def __init__(self):
        self.total = torch.zeros(())
        self.count = torch.zeros(())

    def update(self, v):
        self.total = self.total + v.detach()
        self.count = self.count + 1

    @property
    def mean(self):
        return self.total / self.count.clamp(min=1)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.tracker = RunningLoss()
        self.by_split = {"train": RunningLoss(), "val": RunningLoss()}

    def forward(self, x):
        out = self.fc(x)
        loss = out.pow(2).mean()
        self.tracker.update(loss)
        self.by_split["train"].update(loss)
        if self.tracker.mean > 100:
            out = out * 0
        if self.by_split["train"].mean > 50:
            out = out * 0.5
        return out


def main():
    model = torch.compile(Model(), backend="eager")
    for _ in range(2):
        model(torch.randn(2, 4))


if __name__ == "__main__":
    main()
