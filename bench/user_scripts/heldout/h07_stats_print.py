import torch

class Tracker:
    def __init__(self):
        self.step = 0

    def log(self, **values):
        self.step += 1
        if self.step % 10 == 0:
            print({k: round(float(v), 4) for k, v in values.items()})

tracker = Tracker()

@torch.compile
def step(x, y):
    loss = ((x - y) ** 2).mean()
    tracker.log(loss=loss)
    return loss

for _ in range(3):
    step(torch.rand(4), torch.rand(4))
