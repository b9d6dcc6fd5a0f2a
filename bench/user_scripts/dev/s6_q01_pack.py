import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x, lengths):
        h = self.proj(x)
        packed = pack_padded_sequence(h, lengths, batch_first=True, enforce_sorted=False)
        out, _ = pad_packed_sequence(packed, batch_first=True)
        return out


enc = torch.compile(Encoder())
enc(torch.randn(3, 5, 8), torch.tensor([5, 3, 2]))
