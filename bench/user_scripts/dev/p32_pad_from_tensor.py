import torch
import torch.nn.functional as F

def pad_to_multiple(x, lengths, multiple=4):
    longest = lengths.max()
    target = (longest + multiple - 1) // multiple * multiple
    return F.pad(x, (0, target - x.shape[-1]))

@torch.compile
def collate(x, lengths):
    return pad_to_multiple(x, lengths)

collate(torch.rand(2, 5), torch.tensor([5, 3]))
