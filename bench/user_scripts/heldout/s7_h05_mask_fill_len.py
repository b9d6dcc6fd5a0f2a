import torch


@torch.compile
def pad_batch(seqs, lengths):
    max_len = max(lengths.tolist())
    out = seqs.new_zeros(seqs.shape[0], max_len)
    for i, n in enumerate(lengths):
        out[i, :n] = seqs[i, :n]
    return out


pad_batch(torch.randn(2, 5), torch.tensor([3, 5]))
