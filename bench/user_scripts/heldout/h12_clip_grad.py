import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))

@torch.compile
def grad_norm(params):
    total = 0.0
    for p in params:
        if p.grad is not None:
            total += p.grad.norm() ** 2
    return total ** 0.5

model(torch.rand(2, 4)).sum().backward()
print(grad_norm(list(model.parameters())))
