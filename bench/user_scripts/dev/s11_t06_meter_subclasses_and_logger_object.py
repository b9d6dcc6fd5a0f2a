import torch
import torch.nn as nn


class BaseMeter:
    def __init__(self):
        self.total = torch.zeros(())
        self.n = 0

    def update(self, v):
        self.total = self.total + v.detach()
        self.check(v)

    def check(self, v):
        pass


class LossMeter(BaseMeter):
    def check(self, v):
        if v.isnan():
            raise RuntimeError("nan loss")

    @property
    def avg(self):
        return self.total / max(self.n, 1)


class Logger:
    def __init__(self):
        self.rows = []

    def log(self, name, value):
        self.rows.append((name, float(value)))


LOGGER = Logger()


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.meters = [LossMeter(), LossMeter()]
        self.named = {"train": LossMeter()}

    def forward(self, x):
        out = self.fc(x)
        loss = out.pow(2).mean()
        for m in self.meters:
            m.update(loss)
        self.named["train"].update(loss)
        LOGGER.log("loss", loss)
        if self.named["train"].avg > 100:
            out = out * 0
        return out


def main():
    model = torch.compile(Model(), backend="eager")
    for _ in range(2):
        model(torch.randn(2, 4))


if __name__ == "__main__":
    main()
