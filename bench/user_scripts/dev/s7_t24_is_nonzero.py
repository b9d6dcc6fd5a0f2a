import torch


@torch.compile
def gate(x, flag):
    if flag.is_nonzero():
        return x * 2
    return x


gate(torch.randn(3), torch.tensor([1]))
