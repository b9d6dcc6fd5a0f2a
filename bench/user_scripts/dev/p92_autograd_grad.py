import torch

@torch.compile
def grad_penalty(x, w):
    x = x.requires_grad_(True)
    out = (x @ w).sum()
    g, = torch.autograd.grad(out, x, create_graph=True)
    return (g.norm() - 1) ** 2

grad_penalty(torch.rand(3, 4), torch.rand(4, 2))
