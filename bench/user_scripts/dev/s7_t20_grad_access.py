import torch


@torch.compile
def grad_norm(params):
    total = 0.0
    for p in params:
        if p.grad is not None:
            total = total + p.grad.norm() ** 2
    return total


w = torch.randn(3, requires_grad=True)
(w * 2).sum().backward()
grad_norm([w])
