import torch


class Normalizer:
    def __init__(self):
        self.count = 0

    def __call__(self, x):
        self.count += 1
        return (x - x.mean()) / x.std().item()


norm = Normalizer()


@torch.compile
def prep(x):
    return norm(x) * 2


prep(torch.randn(5))
