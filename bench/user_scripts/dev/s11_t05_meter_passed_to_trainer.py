import torch
import torch.nn as nn


class EMAMeter:
    def __init__(self, decay=0.9):
        self.decay = decay
        self.value = None

    def update(self, loss):
        if self.value is None:
            self.value = loss.detach()
        else:
            self.value = self.decay * self.value + (1 - self.decay) * loss.detach()
        if self.value > 5:
            print("diverging")


class Trainer:
    def __init__(self, model, meter, opt):
        self.model = model
        self.meter = meter
        self.opt = opt

    @torch.compile(backend="eager")
    def step(self, x, y):
        loss = nn.functional.mse_loss(self.model(x), y)
        self.meter.update(loss)
        return loss


def main():
    model = nn.Linear(4, 4)
    meter = EMAMeter()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    trainer = Trainer(model, meter, opt)
    for _ in range(3):
        trainer.step(torch.randn(2, 4), torch.randn(2, 4))


if __name__ == "__main__":
    main()
