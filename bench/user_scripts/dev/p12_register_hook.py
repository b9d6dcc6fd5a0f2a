import torch

grads = []

@torch.compile
def f(x):
    y = x * 2
    y.register_hook(lambda g: grads.append(g))
    return y.sum()

x = torch.rand(3, requires_grad=True)
f(x).backward()
