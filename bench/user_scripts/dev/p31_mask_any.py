import torch
import torch.nn as nn

class Attention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.qkv = nn.Linear(dim, dim * 3)

    def forward(self, x, mask=None):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        scores = q @ k.transpose(-1, -2)
        if mask is not None and mask.any():
            scores = scores.masked_fill(~mask, float("-inf"))
        return scores.softmax(-1) @ v

attn = torch.compile(Attention(8))
attn(torch.rand(2, 4, 8), torch.rand(2, 4, 4) > 0.2)
