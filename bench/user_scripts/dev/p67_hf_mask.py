import torch
import torch.nn as nn

class SelfAttention(nn.Module):
    def __init__(self, dim=8, heads=2):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, dim * 3)
        self.out = nn.Linear(dim, dim)

    def forward(self, hidden_states, attention_mask=None):
        b, n, d = hidden_states.shape
        q, k, v = self.qkv(hidden_states).chunk(3, dim=-1)
        scores = q @ k.transpose(-1, -2) / (d ** 0.5)
        if attention_mask is not None:
            if (attention_mask == 0).all():
                return self.out(v)
            scores = scores + (1.0 - attention_mask[:, None, :]) * -1e4
        return self.out(scores.softmax(-1) @ v)

attn = SelfAttention()
model = torch.compile(attn)
model(torch.rand(2, 4, 8), torch.ones(2, 4))
