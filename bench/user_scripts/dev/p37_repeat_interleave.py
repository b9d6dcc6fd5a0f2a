import torch

@torch.compile
def expand_tokens(x, durations):
    return x.repeat_interleave(durations, dim=0)

expand_tokens(torch.rand(3, 4), torch.tensor([1, 2, 3]))
