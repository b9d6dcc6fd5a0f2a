import torch


@torch.compile
def lengths_mask(x, lengths):
    lens = torch.as_tensor(lengths)
    pos = torch.arange(x.shape[1])
    return x * (pos[None, :] < lens[:, None])


lengths_mask(torch.randn(3, 5), [5, 3, 2])
