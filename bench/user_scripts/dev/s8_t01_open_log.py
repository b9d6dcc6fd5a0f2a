import torch


@torch.compile
def step(x, w):
    loss = (x @ w).pow(2).mean()
    with open("/tmp/s8_t01.log", "a") as fh:
        fh.write("step\n")
    return loss


step(torch.randn(4, 3), torch.randn(3, 2))
