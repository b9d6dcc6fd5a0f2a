import torch

def body(x):
    y = x.sin()
    if y.sum() > 0:
        y = y * 2
    return y

class Runner:
    def __init__(self):
        self.fn = torch.compile(body, mode="reduce-overhead")

    def __call__(self, x):
        return self.fn(x)

Runner()(torch.rand(3))
