import torch

def lengths_to_mask(lengths, max_len=None):
    max_len = max_len or int(lengths.max())
    ids = torch.arange(max_len)
    return ids[None, :] < lengths[:, None]

@torch.compile
def masked_mean(x, lengths):
    mask = lengths_to_mask(lengths)
    x = x[:, : mask.shape[1]]
    return (x * mask[..., None]).sum(1) / lengths[:, None]

print(masked_mean(torch.rand(2, 6, 3), torch.tensor([4, 6])).shape)
