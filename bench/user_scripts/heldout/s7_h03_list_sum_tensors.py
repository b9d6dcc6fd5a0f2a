import torch


def total_loss(losses):
    s = sum(losses)
    return s / len(losses)


@torch.compile
def combine(a, b, c):
    loss = total_loss([a.mean(), b.mean(), c.mean()])
    if loss > 0:
        return loss
    return -loss


combine(torch.randn(3), torch.randn(3), torch.randn(3))
