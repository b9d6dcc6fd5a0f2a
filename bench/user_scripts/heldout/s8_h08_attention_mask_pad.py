import torch
import torch.nn as nn
import torch.nn.functional as F


class SelfAttention(nn.Module):
    def __init__(self, dim=16, heads=2):
        super().__init__()
        self.qkv = nn.Linear(dim, dim * 3)
        self.heads = heads

    def forward(self, x, lengths):
        b, n, d = x.shape
        max_len = lengths.max()
        x = x[:, :max_len]
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k, v = (t.view(b, -1, self.heads, d // self.heads).transpose(1, 2) for t in (q, k, v))
        keep = torch.arange(x.shape[1])[None, :] < lengths[:, None]
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=keep[:, None, None, :])
        return out.transpose(1, 2).reshape(b, -1, d)


attn = torch.compile(SelfAttention())
attn(torch.randn(2, 10, 16), torch.tensor([7, 10]))
