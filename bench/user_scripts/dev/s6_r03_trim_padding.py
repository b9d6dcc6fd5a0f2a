import torch


@torch.compile
def trim(ids, pad_id=0):
    mask = ids != pad_id
    lengths = mask.sum(1)
    max_len = lengths.max()
    return ids[:, :max_len]


trim(torch.tensor([[5, 6, 0, 0], [7, 0, 0, 0]]))
