import torch

def check_finite(x):
    if not torch.isfinite(x).all():
        raise ValueError("non-finite")
    return x

class Block(torch.nn.Module):
    def forward(self, x):
        x = check_finite(x)
        return x * 2

b = torch.compile(Block())
b(torch.rand(3))
