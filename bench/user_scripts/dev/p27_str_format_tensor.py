import torch

class Logger:
    def __init__(self):
        self.lines = []

    def log(self, name, value):
        self.lines.append("%s: %.4f" % (name, value))

logger = Logger()

@torch.compile
def step(x):
    loss = (x ** 2).mean()
    logger.log("loss", loss)
    return loss

step(torch.rand(4))
