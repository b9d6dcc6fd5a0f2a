import torch
import torch.nn as nn


class Meter:
    def __init__(self):
        self.total = torch.zeros(())
        self.n = 0

    def update(self, v):
        self.total += v.detach()
        if v > 10:
            print("big loss", v)

    def mean(self):
        return self.total / max(self.n, 1)


def make_meter():
    return Meter()


class Trainer:
    def __init__(self, model):
        self.model = model
        self.meter = None

    def reset(self):
        self.meter = Meter()

    @torch.compile(backend="eager")
    def step(self, x, y):
        loss = nn.functional.mse_loss(self.model(x), y)
        self.meter.update(loss)
        return loss


@torch.compile(backend="eager")
def evaluate(model, x, y):
    m = make_meter()
    loss = nn.functional.mse_loss(model(x), y)
    m.update(loss)
    return m.mean()


def main():
    model = nn.Linear(4, 4)
    t = Trainer(model)
    t.reset()
    for _ in range(2):
        t.step(torch.randn(2, 4), torch.randn(2, 4))
    print(evaluate(model, torch.randn(2, 4), torch.randn(2, 4)))


if __name__ == "__main__":
    main()
