import torch


@torch.compile
def crop_to(x, size):
    h = size[0]
    return x[:, :h]


crop_to(torch.randn(2, 8), torch.tensor([4, 4]))
